/**
 * The `openai` package's Chat Completions, against a local stand-in for the endpoint on 127.0.0.1:
 * stock is the SDK's own tool runner (`client.chat.completions.runTools`, at its default of 10
 * completions), guarded is hyphae's `runGuardedToolLoop` (at its default of 10 turns). Both use
 * the same client, tools and bodies.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { z } from 'zod';
import { runGuardedToolLoop } from '../../../src/adapters/openai.js';
import {
  COMPLETED,
  createScript,
  type Deliver,
  type Meter,
  maxSteps,
  stopEnding,
  type TranscriptEvent,
  totalOf,
  transcriptError,
} from '../harness.js';
import type { Scenario, Turn } from '../scenarios.js';

/** `runTools`' default `maxChatCompletions`, and `runGuardedToolLoop`'s default `maxTurns`. */
export const OPENAI_MAX_COMPLETIONS = 10;

import { toolDescriptions, toolSchemas } from '../tools.js';

interface ChatMessage {
  readonly role: string;
  readonly tool_call_id?: string;
  readonly tool_calls?: readonly { readonly id: string }[];
}

function completionOf(turn: Turn): Record<string, unknown> {
  const message =
    'text' in turn
      ? { role: 'assistant', content: turn.text, refusal: null }
      : {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: turn.calls.map((call) => ({
            id: call.id,
            type: 'function',
            function: { name: call.name, arguments: JSON.stringify(call.args) },
          })),
        };
  return {
    id: 'chatcmpl-bench',
    object: 'chat.completion',
    created: 0,
    model: 'gpt-4o-mini',
    choices: [{ index: 0, finish_reason: 'text' in turn ? 'stop' : 'tool_calls', logprobs: null, message }],
    usage: {
      prompt_tokens: turn.usage.input,
      completion_tokens: turn.usage.output,
      total_tokens: totalOf(turn.usage),
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'x-should-retry': 'false' });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<{ messages?: ChatMessage[] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as { messages?: ChatMessage[] };
}

/** `POST /v1/chat/completions` answering from the script; a prompt with an orphan tool result gets a 400. */
async function startServer(turns: readonly Turn[], meter: Meter) {
  const script = createScript(turns, meter);
  const server = createServer((request, response) => {
    readJson(request).then(
      (body) => {
        meter.modelCalls++;
        const problem = transcriptError(
          (body.messages ?? []).flatMap((message): TranscriptEvent[] => {
            if (message.role === 'tool') return [{ result: message.tool_call_id ?? '' }];
            const calls = message.tool_calls ?? [];
            return calls.length > 0 ? calls.map((call) => ({ call: call.id })) : [{ message: true }];
          }),
        );
        if (problem !== null) {
          meter.rejected++;
          send(response, 400, { error: { message: problem, type: 'invalid_request_error' } });
        } else {
          send(response, 200, completionOf(script.next()));
        }
      },
      () => send(response, 400, { error: { message: 'bad json' } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function messagesOf(scenario: Scenario): OpenAI.ChatCompletionMessageParam[] {
  const history = scenario.history.map((item): OpenAI.ChatCompletionMessageParam => {
    if (item.role === 'user') return { role: 'user', content: item.text };
    if (item.role === 'assistant') {
      return {
        role: 'assistant',
        content: null,
        tool_calls: item.calls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: JSON.stringify(call.args) },
        })),
      };
    }
    return { role: 'tool', tool_call_id: item.callId, content: item.result };
  });
  return [...history, { role: 'user', content: scenario.prompt }];
}

const parametersOf = (scenario: Scenario) =>
  scenario.tools.map((name) => ({
    name,
    description: toolDescriptions[name],
    parameters: z.toJSONSchema(toolSchemas[name]) as Record<string, unknown>,
  }));

/** One delivery with the openai SDK: `runTools` (stock) or `runGuardedToolLoop` (hyphae). */
export const deliverOpenAi: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  const server = await startServer(scenario.script, meter);
  try {
    const client = new OpenAI({ apiKey: 'bench', baseURL: server.baseURL, maxRetries: 0 });
    const messages = messagesOf(scenario);
    if (pipeline === undefined) {
      const runner = client.chat.completions.runTools({
        model: 'gpt-4o-mini',
        messages,
        tools: parametersOf(scenario).map((definition) => ({
          type: 'function' as const,
          function: {
            ...definition,
            parse: JSON.parse,
            function: (args: unknown) => provider.bodies[definition.name](args),
          },
        })),
      });
      await runner.done();
      const last = runner.messages.at(-1);
      return last?.role === 'assistant' && (last.tool_calls ?? []).length === 0
        ? COMPLETED
        : maxSteps(OPENAI_MAX_COMPLETIONS);
    }
    const result = await runGuardedToolLoop({
      client,
      model: 'gpt-4o-mini',
      messages,
      tools: parametersOf(scenario).map((definition) => ({ type: 'function' as const, function: definition })),
      executors: provider.bodies,
      guards: pipeline.forRun(scope),
    });
    if (result.refusal !== null) return stopEnding(result.refusal);
    return result.stopReason === 'completed' ? COMPLETED : maxSteps(OPENAI_MAX_COMPLETIONS);
  } finally {
    await server.close();
  }
};
