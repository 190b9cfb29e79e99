/**
 * Scripted AI SDK models: a `MockLanguageModelV4` that answers each call with the next scripted
 * step (tool calls, text, or a thrown error), for `generateText` and `streamText`.
 */
import { MockLanguageModelV4 } from 'ai/test';

// The provider-level types, taken from the mock so the tests need no `@ai-sdk/provider` import.
type LanguageModelV4CallOptions = Parameters<MockLanguageModelV4['doGenerate']>[0];
type LanguageModelV4GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;
type LanguageModelV4StreamResult = Awaited<ReturnType<MockLanguageModelV4['doStream']>>;
type LanguageModelV4StreamPart = LanguageModelV4StreamResult['stream'] extends ReadableStream<infer P> ? P : never;
type LanguageModelV4Usage = LanguageModelV4GenerateResult['usage'];

/** Provider-level usage of one call. */
export function usage(input: number, output: number): LanguageModelV4Usage {
  return {
    inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: output, text: output, reasoning: 0 },
  };
}

/** A scripted tool call. */
export interface StepCall {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

/** One scripted answer. */
export type Step =
  | { readonly calls: readonly StepCall[]; readonly usage?: LanguageModelV4Usage }
  | { readonly text: string; readonly usage?: LanguageModelV4Usage }
  | { readonly error: Error };

function generateResult(step: Exclude<Step, { error: Error }>): LanguageModelV4GenerateResult {
  const spent = step.usage ?? usage(10, 5);
  if ('text' in step) {
    return {
      content: [{ type: 'text', text: step.text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: spent,
      warnings: [],
    };
  }
  return {
    content: step.calls.map((call) => ({
      type: 'tool-call' as const,
      toolCallId: call.id,
      toolName: call.name,
      input: JSON.stringify(call.input),
    })),
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage: spent,
    warnings: [],
  };
}

function streamResult(step: Exclude<Step, { error: Error }>): LanguageModelV4StreamResult {
  const { content, finishReason, usage: spent } = generateResult(step);
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  for (const part of content) {
    if (part.type === 'text') {
      parts.push(
        { type: 'text-start', id: 't1' },
        { type: 'text-delta', id: 't1', delta: part.text },
        { type: 'text-end', id: 't1' },
      );
    } else if (part.type === 'tool-call') {
      parts.push(part);
    }
  }
  parts.push({ type: 'finish', finishReason, usage: spent });
  return {
    stream: new ReadableStream({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
  };
}

/** A model answering `doGenerate` and `doStream` calls with the script, in order (shared). */
export function scriptedModel(
  script: readonly Step[],
  modelId = 'mock-model',
): MockLanguageModelV4 & { prompts: LanguageModelV4CallOptions['prompt'][] } {
  const steps = [...script];
  const prompts: LanguageModelV4CallOptions['prompt'][] = [];
  const next = (options: LanguageModelV4CallOptions): Exclude<Step, { error: Error }> => {
    prompts.push(options.prompt);
    const step = steps.shift();
    if (step === undefined) throw new Error('script exhausted');
    if ('error' in step) throw step.error;
    return step;
  };
  const model = new MockLanguageModelV4({
    modelId,
    doGenerate: async (options) => generateResult(next(options)),
    doStream: async (options) => streamResult(next(options)),
  });
  return Object.assign(model, { prompts });
}
