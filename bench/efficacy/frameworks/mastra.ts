/**
 * Mastra (`@mastra/core`) with a scripted `MockLanguageModelV4`: stock is `new Agent({ model,
 * tools }).generate(messages)` at Mastra's own default of 5 steps; guarded is the same agent with
 * `withGuards(pipeline, { model, tools })` spread in, run with a higher `maxSteps` — the loop fuse
 * ends runs that repeat themselves, so the cap can make room for jobs that need the steps.
 */
import { Agent } from '@mastra/core/agent';
import { RequestContext } from '@mastra/core/request-context';
import { createTool } from '@mastra/core/tools';
import { APICallError, type ModelMessage } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { stoppedVerdictOf, withGuards } from '../../../src/adapters/mastra.js';
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

/** Mastra's own default step cap (`maxSteps`). */
export const MASTRA_STEPS = 5;
/** The cap the guarded agent runs with. */
export const MASTRA_GUARDED_STEPS = 25;

type AgentConfig = ConstructorParameters<typeof Agent>[0];
type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

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
  return new MockLanguageModelV4({ modelId: 'gpt-4o-mini', doGenerate: async (options) => answer(options) });
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

function toolsOf(scenario: Scenario, provider: FakeProvider) {
  return Object.fromEntries(
    scenario.tools.map((name) => [
      name,
      createTool({
        id: name,
        description: toolDescriptions[name],
        inputSchema: toolSchemas[name],
        execute: (input: unknown) => provider.bodies[name](input),
      }),
    ]),
  );
}

/** One delivery with `agent.generate`, stock or guarded. */
export const deliverMastra: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  // Mastra declares the provider types of its own bundled copy; the AI SDK's mock is the same model at runtime.
  const model = scriptedModel(scenario, meter) as unknown as AgentConfig['model'];
  const tools = toolsOf(scenario, provider);
  const settings = { id: 'efficacy', name: 'efficacy', instructions: 'You help with billing', model, tools };
  const agent = new Agent(pipeline === undefined ? settings : withGuards(pipeline, settings));
  const limit = pipeline === undefined ? MASTRA_STEPS : MASTRA_GUARDED_STEPS;
  const requestContext = new RequestContext([
    ['threadId', scope.threadId],
    ['runId', scope.runId],
  ]);
  const result = await agent.generate(messagesOf(scenario), {
    ...(pipeline === undefined ? {} : { maxSteps: MASTRA_GUARDED_STEPS }),
    requestContext,
  });
  if (result.error !== undefined) throw result.error;
  const verdict = stoppedVerdictOf(result);
  if (verdict !== undefined) return stopEnding(verdict);
  if (result.finishReason === 'stop') return COMPLETED;
  return result.steps.length >= limit ? maxSteps(limit) : `ended \`${result.finishReason}\``;
};
