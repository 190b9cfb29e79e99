import { APICallError } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  createAiSdkMainModel,
  createAiSdkVisionModel,
  createPatchHarness,
  ModelAuthError,
  ModelInvalidResponseError,
  ModelRateLimitError,
} from '../../src/harness/index.js';
import { lookupColor, poster, posterSpec } from './helpers/fixtures.js';

type Generated = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>;

const usage = {
  inputTokens: { total: 120, noCache: 80, cacheRead: 30, cacheWrite: 10 },
  outputTokens: { total: 25, text: 18, reasoning: 7 },
};

function answer(text: string): Generated {
  return { content: [{ type: 'text', text }], finishReason: { unified: 'stop', raw: 'stop' }, usage, warnings: [] };
}

function toolCall(toolCallId: string, toolName: string, input: string): Generated {
  return {
    content: [{ type: 'tool-call', toolCallId, toolName, input }],
    finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
    usage,
    warnings: [],
  };
}

const base = { request: 'Make it ocean blue', design: poster(), canEdit: true };
const blue = [{ op: 'replace', path: '/color', value: '#0055aa' }];

describe('createAiSdkMainModel', () => {
  it('runs tools and returns a structured final answer, with usage mapped', async () => {
    const mock = new MockLanguageModelV4({
      modelId: 'mock-4',
      doGenerate: [
        toolCall('call_1', 'lookup_color', '{"name":"ocean"}'),
        answer(JSON.stringify({ message: 'Ocean blue.', patch: blue })),
      ],
    });
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: createAiSdkMainModel({ model: mock }),
      tools: [lookupColor],
    });

    const result = await harness.run(base);

    expect(result).toMatchObject({ message: 'Ocean blue.', patch: blue, changed: true });
    const [first, second] = mock.doGenerateCalls;
    expect(first?.responseFormat).toMatchObject({
      type: 'json',
      name: 'final_response',
      schema: { required: ['message', 'patch'] },
    });
    expect(first?.tools?.map((tool) => tool.name)).toEqual(['lookup_color', 'retrieve_evidence']);
    expect(first?.prompt[0]).toMatchObject({ role: 'system' });
    expect(second?.prompt.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_1', toolName: 'lookup_color', output: { type: 'text' } }],
    });
    expect(result.modelCalls[0]?.usage).toEqual({
      inputTokens: 120,
      outputTokens: 25,
      cachedInputTokens: 30,
      cacheWriteTokens: 10,
      reasoningTokens: 7,
    });
    expect(result.usage).toMatchObject({ inputTokens: 240, reasoningTokens: 14, calls: 2 });
  });

  it('in text mode, recovers from a protocol error and reads a fenced answer', async () => {
    const mock = new MockLanguageModelV4({
      doGenerate: [answer('Sure, making it blue!'), answer('```json\n{"message":"Done.","patch":null}\n```')],
    });
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: createAiSdkMainModel({ model: mock, output: 'text' }),
    });

    const result = await harness.run(base);

    expect(result.message).toBe('Done.');
    expect(mock.doGenerateCalls[0]?.responseFormat).toMatchObject({ type: 'text' });
    expect(mock.doGenerateCalls[1]?.prompt.at(-1)).toMatchObject({ role: 'user' });
    expect(result.traces.map((trace) => trace.kind)).toEqual(['protocol_error', 'final']);
  });

  it('in json mode, reports unparseable tool input and unknown tools to the model as rejected calls', async () => {
    const mock = new MockLanguageModelV4({
      doGenerate: [
        {
          ...toolCall('a', 'lookup_color', '{oops'),
          content: [
            { type: 'tool-call', toolCallId: 'a', toolName: 'lookup_color', input: '{oops' },
            { type: 'tool-call', toolCallId: 'b', toolName: 'paint', input: '{}' },
          ],
        },
        answer('{"message":"ok","patch":null}'),
      ],
    });
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: createAiSdkMainModel({ model: mock, output: 'json' }),
      tools: [lookupColor],
    });

    const result = await harness.run(base);

    expect(mock.doGenerateCalls[0]?.responseFormat).toEqual({ type: 'json' });
    expect(result.toolOutcomes.map((o) => [o.callId, o.status, o.error?.code])).toEqual([
      ['a', 'rejected', 'invalid_input'],
      ['b', 'rejected', 'unknown_tool'],
    ]);
    expect(result.toolOutcomes[0]?.error?.message).toMatch(/not valid JSON/);
  });

  it('maps provider failures onto the stable hierarchy', async () => {
    const failing = (statusCode: number, headers: Record<string, string> = {}) =>
      new MockLanguageModelV4({
        doGenerate: async () => {
          throw new APICallError({
            message: 'refused',
            url: 'https://x',
            requestBodyValues: {},
            statusCode,
            responseHeaders: headers,
            isRetryable: statusCode === 429,
          });
        },
      });
    const runWith = (mock: MockLanguageModelV4) =>
      createPatchHarness({ designSpec: posterSpec, mainModel: createAiSdkMainModel({ model: mock, maxRetries: 0 }) })
        .run(base)
        .catch((caught: unknown) => caught);

    const limited = await runWith(failing(429, { 'retry-after': '2' }));
    const denied = await runWith(failing(401));

    expect(limited).toBeInstanceOf(ModelRateLimitError);
    expect(limited).toMatchObject({
      code: 'model_rate_limit',
      statusCode: 429,
      retryAfterMs: 2000,
      retryable: true,
      model: 'mock-model-id',
    });
    expect((limited as Error).cause).toBeInstanceOf(APICallError);
    expect(denied).toBeInstanceOf(ModelAuthError);
  });

  it('passes the caller’s signal to the provider and rejects with its reason when it aborts', async () => {
    const controller = new AbortController();
    const reason = new Error('user left');
    const mock = new MockLanguageModelV4({
      doGenerate: async (options) => {
        controller.abort(reason);
        expect(options.abortSignal?.aborted).toBe(true);
        throw options.abortSignal?.reason;
      },
    });
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: createAiSdkMainModel({ model: mock, maxRetries: 0 }),
    });

    await expect(harness.run({ ...base, signal: controller.signal })).rejects.toBe(reason);
  });
});

describe('createAiSdkVisionModel', () => {
  it('sends the labelled images in order as file parts with the prompt, and maps usage', async () => {
    const mock = new MockLanguageModelV4({ modelId: 'eyes', doGenerate: [answer('A red poster')] });
    const vision = createAiSdkVisionModel({ model: mock });

    const response = await vision.complete({
      purpose: 'comparison',
      prompt: 'What changed?',
      questions: ['What changed?'],
      images: [
        { label: 'render:1', artifact: { mediaType: 'image/png', bytes: new Uint8Array([137, 80, 78, 71]) } },
        { label: 'render:2', artifact: { mediaType: 'image/jpeg', bytes: new Uint8Array([255, 216]) } },
      ],
      maxOutputTokens: 200,
    });

    expect(response).toMatchObject({
      text: 'A red poster',
      model: 'eyes',
      usage: { inputTokens: 120, outputTokens: 25 },
    });
    expect(vision.id).toBe('eyes');
    const content = mock.doGenerateCalls[0]?.prompt[0]?.content as {
      type: string;
      mediaType?: string;
      text?: string;
    }[];
    expect(content.map((part) => part.type)).toEqual(['text', 'file', 'text', 'file', 'text']);
    expect(content.map((part) => part.text ?? part.mediaType)).toEqual([
      'Image 1: render:1',
      'image/png',
      'Image 2: render:2',
      'image/jpeg',
      'What changed?',
    ]);
    expect(mock.doGenerateCalls[0]?.maxOutputTokens).toBe(200);
    expect(mock.doGenerateCalls[0]?.responseFormat?.type ?? 'text').toBe('text');
  });

  const reviewSchema = {
    type: 'object',
    properties: { score: { type: 'integer', minimum: 0, maximum: 10 } },
    required: ['score'],
    additionalProperties: false,
  };
  const request = {
    purpose: 'render_review' as const,
    prompt: 'Rate it',
    questions: ['Rate it'],
    images: [{ label: 'render:1', artifact: { mediaType: 'image/png', bytes: new Uint8Array([1]) } }],
    outputSchema: reviewSchema,
    maxOutputTokens: 100,
  };

  it('sends an output schema as the response format and returns the checked review as `output`', async () => {
    const mock = new MockLanguageModelV4({ modelId: 'eyes', doGenerate: [answer('{"score":7}')] });

    const response = await createAiSdkVisionModel({ model: mock }).complete(request);

    expect(response.output).toEqual({ score: 7 });
    expect(mock.doGenerateCalls[0]?.responseFormat).toMatchObject({ type: 'json', schema: reviewSchema });
  });

  it('fails with ModelInvalidResponseError when the review does not match its schema', async () => {
    const mock = new MockLanguageModelV4({ modelId: 'eyes', doGenerate: [answer('{"score":"great"}')] });

    const error = await createAiSdkVisionModel({ model: mock })
      .complete(request)
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ModelInvalidResponseError);
    expect((error as Error).message).toMatch(/\/score/);
  });
});
