/**
 * The Vercel AI SDK (`ai` 7) with a scripted `MockLanguageModelV4`: `ToolLoopAgent` at its own
 * default of 20 steps, and `streamText` with `stopWhen: isStepCount(20)` (its own default is a
 * single step). Guarded is the same call with `withGuards(guards, { model, tools })` spread in.
 */
import { APICallError, isStepCount, type ModelMessage, streamText, type Tool, ToolLoopAgent, tool } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { withGuards } from '../../../src/adapters/ai-sdk.js';
import type { GuardRun } from '../../../src/adapters/shared/run-types.js';
import {
  COMPLETED,
  createScript,
  type Deliver,
  type Meter,
  maxSteps,
  rejectPrompt,
  stopEnding,
  type TranscriptEvent,
  transcriptError,
} from '../harness.js';
import type { Scenario } from '../scenarios.js';
import { type FakeProvider, toolDescriptions, toolSchemas } from '../tools.js';

// The AI SDK warns on the process when a loop reaches its default limit; the report says it.
(globalThis as { AI_SDK_LOG_WARNINGS?: boolean }).AI_SDK_LOG_WARNINGS = false;

/** `ToolLoopAgent`'s own default step limit, and the one `streamText` is given. */
export const AI_SDK_STEPS = 20;

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type StreamPart = StreamResult['stream'] extends ReadableStream<infer P> ? P : never;

/** The tool calls, results and other messages of a provider-level prompt, in order. */
function transcriptOf(prompt: CallOptions['prompt']): TranscriptEvent[] {
  return prompt.flatMap((message): TranscriptEvent[] => {
    if (message.role === 'assistant') {
      const calls = message.content.flatMap((part) => (part.type === 'tool-call' ? [{ call: part.toolCallId }] : []));
      return calls.length > 0 ? calls : [{ message: true }];
    }
    if (message.role === 'tool') {
      return message.content.flatMap((part) => (part.type === 'tool-result' ? [{ result: part.toolCallId }] : []));
    }
    return [{ message: true }];
  });
}

function scriptedModel(scenario: Scenario, meter: Meter): MockLanguageModelV4 {
  const script = createScript(scenario.script, meter);
  const answer = (options: CallOptions): GenerateResult => {
    meter.modelCalls++;
    const problem = transcriptError(transcriptOf(options.prompt));
    if (problem !== null) {
      throw rejectPrompt(
        meter,
        (message) =>
          new APICallError({
            message,
            url: 'http://127.0.0.1/v1/chat/completions',
            requestBodyValues: {},
            statusCode: 400,
            isRetryable: false,
          }),
        problem,
      );
    }
    const turn = script.next();
    const usage = {
      inputTokens: { total: turn.usage.input, noCache: turn.usage.input, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: turn.usage.output, text: turn.usage.output, reasoning: 0 },
    };
    if ('text' in turn) {
      return {
        content: [{ type: 'text', text: turn.text }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      };
    }
    return {
      content: turn.calls.map((call) => ({
        type: 'tool-call' as const,
        toolCallId: call.id,
        toolName: call.name,
        input: JSON.stringify(call.args),
      })),
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage,
      warnings: [],
    };
  };
  return new MockLanguageModelV4({
    modelId: 'gpt-4o-mini',
    doGenerate: async (options) => answer(options),
    doStream: async (options) => {
      const { content, finishReason, usage } = answer(options);
      const parts: StreamPart[] = [{ type: 'stream-start', warnings: [] }];
      for (const part of content) {
        if (part.type === 'text') {
          parts.push(
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: part.text },
            { type: 'text-end', id: 't' },
          );
        } else if (part.type === 'tool-call') {
          parts.push(part);
        }
      }
      parts.push({ type: 'finish', finishReason, usage });
      return {
        stream: new ReadableStream({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
}

function messagesOf(scenario: Scenario): ModelMessage[] {
  const history = scenario.history.map((item): ModelMessage => {
    if (item.role === 'user') return { role: 'user', content: item.text };
    if (item.role === 'assistant') {
      return {
        role: 'assistant',
        content: item.calls.map((call) => ({
          type: 'tool-call',
          toolCallId: call.id,
          toolName: call.name,
          input: call.args,
        })),
      };
    }
    return {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: item.callId,
          toolName: item.name,
          output: { type: 'text', value: item.result },
        },
      ],
    };
  });
  return [...history, { role: 'user', content: scenario.prompt }];
}

function toolsOf(scenario: Scenario, provider: FakeProvider): Record<string, Tool> {
  return Object.fromEntries(
    scenario.tools.map((name) => [
      name,
      tool({
        description: toolDescriptions[name],
        inputSchema: toolSchemas[name],
        execute: (input: unknown) => provider.bodies[name](input),
      }),
    ]),
  );
}

/** How a guarded run ended: the guards' stop, or the model's own ending. */
function endingOf(guards: GuardRun | undefined, finishReason: string, steps: number): string {
  if (guards?.stopped != null) return stopEnding(guards.stopped);
  if (finishReason === 'stop') return COMPLETED;
  return maxSteps(steps);
}

/** One delivery with `ToolLoopAgent.generate`, stock or guarded. */
export const deliverToolLoopAgent: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  const model = scriptedModel(scenario, meter);
  const tools = toolsOf(scenario, provider);
  const guards = pipeline?.forRun(scope);
  const agent = new ToolLoopAgent(guards === undefined ? { model, tools } : withGuards(guards, { model, tools }));
  const result = await agent.generate({ messages: messagesOf(scenario) });
  const verdict = result.steps.at(-1)?.providerMetadata?.hyphae;
  if (verdict !== undefined && guards?.stopped == null) return stopEnding(verdict as { code: string });
  return endingOf(guards, result.finishReason, AI_SDK_STEPS);
};

/** One delivery with `streamText`, read to its end, stock or guarded. */
export const deliverStreamText: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  const model = scriptedModel(scenario, meter);
  const tools = toolsOf(scenario, provider);
  const guards = pipeline?.forRun(scope);
  const stopWhen = isStepCount(AI_SDK_STEPS);
  let failure: unknown;
  const settings = guards === undefined ? { model, tools, stopWhen } : withGuards(guards, { model, tools, stopWhen });
  const result = streamText({
    ...settings,
    messages: messagesOf(scenario),
    onError: ({ error }) => {
      failure ??= error;
    },
  });
  await result.consumeStream();
  if (failure !== undefined) throw failure;
  const steps = await result.steps;
  const verdict = steps.at(-1)?.providerMetadata?.hyphae;
  if (verdict !== undefined && guards?.stopped == null) return stopEnding(verdict as { code: string });
  return endingOf(guards, await result.finishReason, AI_SDK_STEPS);
};
