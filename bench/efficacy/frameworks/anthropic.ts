/**
 * `@anthropic-ai/sdk`'s tool runner against a local stand-in for the Messages API on 127.0.0.1,
 * which holds message threads and answers 400 for a history the API refuses (an orphan
 * `tool_result`, a `tool_use` without its result, a `tool_use` id used twice). Stock is
 * `client.beta.messages.toolRunner` at its defaults (no `max_iterations`, message threads on, two
 * retries); guarded is the same runner over `guardAnthropicClient` with `guardRunnableTools`.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { guardAnthropicClient, guardRunnableTools, stoppedVerdictOf } from '../../../src/adapters/anthropic.js';
import { formatToolResult } from '../../../src/adapters/shared/format-result.js';
import {
  COMPLETED,
  createScript,
  type Deliver,
  type Meter,
  stopEnding,
  type TranscriptEvent,
  transcriptError,
} from '../harness.js';
import type { Scenario, Turn } from '../scenarios.js';
import { type FakeProvider, toolDescriptions, toolSchemas } from '../tools.js';

type Block = { readonly type?: string; readonly id?: string; readonly tool_use_id?: string };
type Message = { readonly role?: string; readonly content?: unknown };

const blocksOf = (message: Message): Block[] => (Array.isArray(message.content) ? (message.content as Block[]) : []);

/** The history as the harness's transcript events, in order. */
function eventsOf(messages: readonly Message[]): TranscriptEvent[] {
  return messages.flatMap((message): TranscriptEvent[] => {
    const blocks = blocksOf(message);
    if (message.role === 'assistant') {
      const calls = blocks.filter((block) => block.type === 'tool_use').map((block) => ({ call: block.id ?? '' }));
      return calls.length > 0 ? calls : [{ message: true }];
    }
    const results = blocks
      .filter((block) => block.type === 'tool_result')
      .map((block) => ({ result: block.tool_use_id ?? '' }));
    const other = typeof message.content === 'string' || blocks.some((block) => block.type !== 'tool_result');
    return other || results.length === 0 ? [...results, { message: true as const }] : results;
  });
}

/** What the Messages API says of a history, or null. */
function historyProblem(messages: readonly Message[]): string | null {
  const ids = messages.flatMap((message) =>
    message.role === 'assistant' ? blocksOf(message).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])) : [],
  );
  if (new Set(ids).size !== ids.length) return '`tool_use` ids must be unique';
  return transcriptError(eventsOf(messages));
}

function messageOf(turn: Turn, id: string): Record<string, unknown> {
  const content =
    'text' in turn
      ? [{ type: 'text', text: turn.text }]
      : turn.calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args }));
  return {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-bench',
    content,
    stop_reason: 'text' in turn ? 'end_turn' : 'tool_use',
    stop_sequence: null,
    usage: {
      input_tokens: turn.usage.input,
      output_tokens: turn.usage.output,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
    },
  };
}

function send(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_${status}` });
  response.end(JSON.stringify(body));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
}

/** `POST /v1/messages` answering from the script, holding threads, refusing an invalid history. */
async function startServer(turns: readonly Turn[], meter: Meter) {
  const script = createScript(turns, meter);
  const threads = new Map<string, Message[]>();
  let replies = 0;
  const server = createServer((request, response) => {
    readJson(request).then(
      (body) => {
        meter.modelCalls++;
        const thread = body.thread as { type?: string; previous_message_id?: string } | undefined;
        const held = thread?.type === 'continue' ? threads.get(thread.previous_message_id ?? '') : [];
        if (held === undefined) {
          const details = { error_code: 'thread_not_found' };
          send(response, 404, { type: 'error', error: { type: 'not_found_error', message: 'thread', details } });
          return;
        }
        const history = [...held, ...((body.messages as Message[] | undefined) ?? [])];
        const problem = historyProblem(history);
        if (problem !== null) {
          meter.rejected++;
          send(response, 400, { type: 'error', error: { type: 'invalid_request_error', message: problem } });
          return;
        }
        const message = messageOf(script.next(), `msg_bench_${++replies}`);
        if (thread !== undefined) threads.set(String(message.id), [...history, message as Message]);
        send(response, 200, message);
      },
      () => send(response, 400, { type: 'error', error: { type: 'invalid_request_error', message: 'bad json' } }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

function messagesOf(scenario: Scenario): BetaMessageParam[] {
  const history: BetaMessageParam[] = [];
  for (const item of scenario.history) {
    if (item.role === 'user') history.push({ role: 'user', content: item.text });
    else if (item.role === 'assistant') {
      history.push({
        role: 'assistant',
        content: item.calls.map((call) => ({ type: 'tool_use', id: call.id, name: call.name, input: call.args })),
      });
    } else {
      history.push({
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: item.callId, content: item.result }],
      });
    }
  }
  return [...history, { role: 'user', content: scenario.prompt }];
}

function toolsOf(scenario: Scenario, provider: FakeProvider) {
  return scenario.tools.map((name) =>
    betaZodTool({
      name,
      description: toolDescriptions[name],
      inputSchema: toolSchemas[name],
      run: async (args) => formatToolResult(await provider.bodies[name](args)),
    }),
  );
}

/** One delivery with the Anthropic SDK's tool runner, stock or guarded. */
export const deliverAnthropic: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  const server = await startServer(scenario.script, meter);
  try {
    const stock = new Anthropic({ apiKey: 'bench', baseURL: server.baseURL });
    const guards = pipeline?.forRun(scope);
    const client = guards === undefined ? stock : guardAnthropicClient(stock, guards);
    const tools = toolsOf(scenario, provider);
    const final = await client.beta.messages.toolRunner({
      model: 'claude-bench',
      max_tokens: 1024,
      messages: messagesOf(scenario),
      tools: guards === undefined ? tools : guardRunnableTools(tools, guards),
    });
    const verdict = stoppedVerdictOf(final);
    return verdict === undefined ? COMPLETED : stopEnding(verdict);
  } finally {
    await server.close();
  }
};
