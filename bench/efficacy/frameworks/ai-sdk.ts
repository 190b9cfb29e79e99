/**
 * The Vercel AI SDK (`ai` 7) with a scripted `MockLanguageModelV4`: stock is `generateText` with
 * the tools as they are; guarded adds `guardTools`, `hyphaeStopWhen` and the `hyphaeMiddleware`
 * model middleware.
 */
import { APICallError, generateText, isStepCount, type ModelMessage, type Tool, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { guardTools, hyphaeMiddleware, hyphaeStopWhen, ModelCallRefusedError } from '../../../src/adapters/ai-sdk.js';
import {
  COMPLETED,
  createScript,
  type Deliver,
  firstOrphan,
  maxSteps,
  orphanMessage,
  stopEnding,
  type TranscriptEvent,
} from '../harness.js';
import { MAX_STEPS, type Scenario } from '../scenarios.js';
import { type FakeProvider, toolDescriptions, toolSchemas } from '../tools.js';

type CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];
type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

/** The tool calls and results of a provider-level prompt, in order. */
function transcriptOf(prompt: CallOptions['prompt']): TranscriptEvent[] {
  return prompt.flatMap((message): TranscriptEvent[] => {
    if (message.role === 'assistant') {
      return message.content.flatMap((part) => (part.type === 'tool-call' ? [{ call: part.toolCallId }] : []));
    }
    if (message.role === 'tool') {
      return message.content.flatMap((part) => (part.type === 'tool-result' ? [{ result: part.toolCallId }] : []));
    }
    return [];
  });
}

function scriptedModel(scenario: Scenario, meter: { modelCalls: number; tokens: number }): MockLanguageModelV4 {
  const script = createScript(scenario.script, meter);
  return new MockLanguageModelV4({
    modelId: 'gpt-4o-mini',
    doGenerate: async (options): Promise<GenerateResult> => {
      meter.modelCalls++;
      const orphan = firstOrphan(transcriptOf(options.prompt));
      if (orphan !== null) {
        throw new APICallError({
          message: orphanMessage(orphan),
          url: 'http://127.0.0.1/v1/chat/completions',
          requestBodyValues: {},
          statusCode: 400,
          isRetryable: false,
        });
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
    },
  });
}

function messagesOf(scenario: Scenario): ModelMessage[] {
  const history: ModelMessage[] = scenario.history.map((item) =>
    item.role === 'user'
      ? { role: 'user', content: item.text }
      : {
          role: 'tool',
          content: [
            {
              type: 'tool-result',
              toolCallId: item.callId,
              toolName: item.name,
              output: { type: 'text', value: item.result },
            },
          ],
        },
  );
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

/** One delivery with `generateText`, stock or guarded. */
export const deliverAiSdk: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  const model = scriptedModel(scenario, meter);
  const tools = toolsOf(scenario, provider);
  const messages = messagesOf(scenario);
  if (pipeline === undefined) {
    const result = await generateText({ model, messages, tools, stopWhen: isStepCount(MAX_STEPS) });
    return result.finishReason === 'stop' ? COMPLETED : maxSteps(MAX_STEPS);
  }
  const guards = pipeline.forRun(scope);
  try {
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: hyphaeMiddleware(guards) }),
      messages,
      tools: guardTools(tools, guards),
      stopWhen: [isStepCount(MAX_STEPS), hyphaeStopWhen(guards)],
    });
    if (guards.stopped !== null) return stopEnding(guards.stopped);
    return result.finishReason === 'stop' ? COMPLETED : maxSteps(MAX_STEPS);
  } catch (error) {
    if (error instanceof ModelCallRefusedError) return stopEnding(error.refusal);
    throw error;
  }
};
