/**
 * Default model adapters over the Vercel AI SDK (`ai` 7, any provider). This is the only module
 * that loads `ai`, lazily, on the first call; its types are declared structurally so that none
 * of `ai` appears in our declarations.
 */
import { compileSchema } from '../../boundary/compile-schema.js';
import type { JsonSchemaObject } from '../../boundary/field-spec.js';
import { checkOptions } from '../../invalid-argument.js';
import { importPeerDependency } from '../../peer-dependency.js';
import { invalidHarnessOption } from '../errors.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';
import { describeIssues, parseModelJson } from '../run/model-json.js';
import { fromAiToolCalls, fromAiUsage, toAiPrompt } from './ai-sdk-convert.js';
import { mapAiSdkError } from './ai-sdk-errors.js';
import { ModelInvalidResponseError } from './model-errors.js';
import type {
  MainModel,
  ModelRequest,
  ModelResponse,
  ProviderMetadata,
  VisionModel,
  VisionResponse,
  VisionReviewRequest,
} from './types.js';

/** An AI SDK language model (a provider's model object) or a gateway model id. */
export type AiSdkLanguageModel =
  | string
  | { readonly provider: string; readonly modelId: string; readonly specificationVersion: string };

/** The parts of the `ai` module the adapters use. */
export interface AiSdkModule {
  generateText(options: Record<string, unknown>): PromiseLike<unknown>;
  jsonSchema(schema: unknown): unknown;
}

/**
 * How the final answer is requested: `structured` sends its JSON Schema (providers that support
 * structured outputs enforce it), `json` asks for a JSON object without a schema, `text` asks
 * for nothing and relies on the contract in the system message.
 */
export type AiSdkOutputMode = 'structured' | 'json' | 'text';

/** Options shared by the AI SDK adapters. */
export interface AiSdkModelOptions {
  readonly model: AiSdkLanguageModel;
  /** Name in traces and budget pricing (default: the model id). */
  readonly id?: string;
  /** The AI SDK's own retries of retryable provider failures (default: the SDK's, 2). */
  readonly maxRetries?: number;
  readonly temperature?: number;
  /** Passed through to the provider. */
  readonly providerOptions?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
  /** The `ai` module to use (default: `await import('ai')`). */
  readonly ai?: AiSdkModule;
}

/** Options of {@link createAiSdkMainModel}. */
export interface AiSdkMainModelOptions extends AiSdkModelOptions {
  /** Default `structured`. */
  readonly output?: AiSdkOutputMode;
}

let loaded: Promise<AiSdkModule> | undefined;

function loadAi(): Promise<AiSdkModule> {
  loaded ??= importPeerDependency(
    async () => (await import('ai')) as unknown as AiSdkModule,
    'ai',
    'The AI SDK model of the patch harness',
  ).catch((error: unknown) => {
    loaded = undefined;
    throw error;
  });
  return loaded;
}

function modelName(options: AiSdkModelOptions): string {
  const { model } = options;
  if (typeof model === 'string' && model !== '') return model;
  if (typeof model === 'object' && model !== null && typeof model.modelId === 'string') return model.modelId;
  throw invalidHarnessOption('model', 'expected an AI SDK language model or a gateway model id');
}

/** An `Output` that asks for `format` and hands back the raw text: the harness parses and validates it itself. */
function rawOutput(name: string, format: Readonly<Record<string, unknown>>): unknown {
  return {
    name,
    responseFormat: Promise.resolve(format),
    parseCompleteOutput: async ({ text }: { text: string }) => text,
    parsePartialOutput: async () => undefined,
    createElementStreamTransform: () => undefined,
  };
}

/** How the final answer is asked for in `mode`. */
function answerOutput(mode: AiSdkOutputMode, request: ModelRequest): unknown {
  if (mode !== 'structured') return rawOutput(mode, { type: mode });
  const { schema, name } = request.responseFormat;
  return rawOutput('object', { type: 'json', schema, name });
}

function abortSignalOf(signal: AbortSignal | undefined, timeout: AbortSignal | undefined): AbortSignal | undefined {
  if (signal === undefined) return timeout;
  if (timeout === undefined) return signal;
  return AbortSignal.any([signal, timeout]);
}

async function generate(
  options: AiSdkModelOptions,
  call: Record<string, unknown>,
  signals: VisionReviewRequest | ModelRequest,
): Promise<Record<string, unknown>> {
  const name = modelName(options);
  const ai = options.ai ?? (await loadAi());
  try {
    const result = await ai.generateText({
      model: options.model,
      ...call,
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
      ...(options.providerOptions === undefined ? {} : { providerOptions: options.providerOptions }),
      abortSignal: abortSignalOf(signals.signal, signals.timeoutSignal),
    });
    return (result ?? {}) as Record<string, unknown>;
  } catch (error) {
    // An abort surfaces as the signal's own reason, never wrapped.
    if (signals.signal?.aborted) throw signals.signal.reason;
    if (signals.timeoutSignal?.aborted) throw signals.timeoutSignal.reason;
    throw mapAiSdkError(error, name);
  }
}

/** The answer's text: the structured-output text when there is one, else the step's text. */
function answerText(result: Record<string, unknown>): string {
  let output: unknown;
  try {
    output = result.output; // a getter that throws when the step ended in tool calls
  } catch {
    output = undefined;
  }
  if (typeof output === 'string') return output;
  return typeof result.text === 'string' ? result.text : '';
}

function responseModel(result: Record<string, unknown>, fallback: string): string {
  const response = result.response as { modelId?: unknown } | undefined;
  return typeof response?.modelId === 'string' ? response.modelId : fallback;
}

/**
 * The reasoning text, the response id and the provider metadata of a result, when it has them.
 * The AI SDK reports cached tokens, not whether the cache was hit, so `cacheHit` stays unset.
 */
function responseDetails(
  result: Record<string, unknown>,
): Pick<ModelResponse, 'reasoning' | 'responseId' | 'providerMetadata'> {
  const response = result.response as { id?: unknown } | undefined;
  let metadata: ProviderMetadata | undefined;
  if (typeof result.providerMetadata === 'object' && result.providerMetadata !== null) {
    try {
      metadata = JSON.parse(JSON.stringify(result.providerMetadata)) as ProviderMetadata;
    } catch {
      metadata = undefined; // not JSON: left out rather than half kept
    }
  }
  return {
    ...(typeof result.reasoningText === 'string' && result.reasoningText !== ''
      ? { reasoning: result.reasoningText }
      : {}),
    ...(typeof response?.id === 'string' ? { responseId: response.id } : {}),
    ...(metadata === undefined ? {} : { providerMetadata: metadata }),
  };
}

/**
 * A {@link MainModel} over the AI SDK: one `generateText` step per call, tools declared without
 * `execute` (the harness runs them), the final answer in `structured`, `json` or `text` mode,
 * usage mapped (input, output, cached, cache-write and reasoning tokens), provider failures
 * mapped onto {@link ModelProviderError} subclasses.
 *
 * @example
 * import { openai } from '@ai-sdk/openai';
 * const mainModel = createAiSdkMainModel({ model: openai('gpt-4.1'), output: 'structured' });
 * const harness = createPatchHarness({ designSpec, mainModel });
 */
export function createAiSdkMainModel(options: AiSdkMainModelOptions): MainModel {
  checkOptions('createAiSdkMainModel', options, false);
  const id = options.id ?? modelName(options);
  const mode = options.output ?? 'structured';
  if (mode !== 'structured' && mode !== 'json' && mode !== 'text') {
    throw invalidHarnessOption('output', `expected \`structured\`, \`json\` or \`text\`, got \`${String(mode)}\``);
  }
  return {
    id,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      const ai = options.ai ?? (await loadAi());
      const prompt = toAiPrompt(request.messages);
      const tools: Record<string, unknown> = {};
      for (const tool of request.tools) {
        tools[tool.name] = { description: tool.description, inputSchema: ai.jsonSchema(tool.inputSchema) };
      }
      const result = await generate(
        { ...options, ai },
        {
          ...(prompt.instructions === undefined ? {} : { instructions: prompt.instructions }),
          messages: prompt.messages,
          ...(request.tools.length === 0 ? {} : { tools }),
          output: answerOutput(mode, request),
          maxOutputTokens: request.maxOutputTokens,
        },
        request,
      );
      const usage = fromAiUsage(result.usage);
      const text = answerText(result);
      return {
        text,
        toolCalls: fromAiToolCalls(result.toolCalls),
        ...(usage === undefined ? {} : { usage }),
        ...(typeof result.finishReason === 'string' ? { finishReason: result.finishReason } : {}),
        model: responseModel(result, id),
        ...responseDetails(result),
      };
    },
  };
}

/** Parse and check a structured review; throws {@link ModelInvalidResponseError}. */
function parseReview(text: string, schema: JsonSchemaObject, model: string): JsonValue {
  const parsed = parseModelJson(text);
  if (!parsed.ok) {
    throw new ModelInvalidResponseError({
      message: `The review is not JSON: ${parsed.error.message}`,
      model,
      cause: parsed.error,
    });
  }
  const checked = compileSchema(schema).validate(parsed.value);
  if (!checked.ok) {
    throw new ModelInvalidResponseError({
      message: `The review does not match its schema (${describeIssues(checked.issues)})`,
      model,
    });
  }
  return parsed.value as JsonValue;
}

/**
 * A {@link VisionModel} over the AI SDK: one user message with, for each image in order, a text
 * part naming its label and a file part with its bytes, then the prompt. With an `outputSchema`
 * the schema goes to the provider as the response format, and the answer is parsed and checked
 * against it (a mismatch is a {@link ModelInvalidResponseError}).
 *
 * @example
 * const visionModel = createAiSdkVisionModel({ model: openai('gpt-4.1-mini') });
 */
export function createAiSdkVisionModel(options: AiSdkModelOptions): VisionModel {
  checkOptions('createAiSdkVisionModel', options, false);
  const id = options.id ?? modelName(options);
  return {
    id,
    async complete(request: VisionReviewRequest): Promise<VisionResponse> {
      const parts: Record<string, unknown>[] = [];
      request.images.forEach((image, index) => {
        parts.push({ type: 'text', text: `Image ${index + 1}: ${image.label}` });
        parts.push({ type: 'file', mediaType: image.artifact.mediaType, data: image.artifact.bytes });
      });
      parts.push({ type: 'text', text: request.prompt });
      const result = await generate(
        options,
        {
          messages: [{ role: 'user', content: parts }],
          maxOutputTokens: request.maxOutputTokens,
          ...(request.outputSchema === undefined
            ? {}
            : { output: rawOutput('object', { type: 'json', schema: request.outputSchema, name: 'visual_review' }) }),
        },
        request,
      );
      const usage = fromAiUsage(result.usage);
      const text =
        request.outputSchema === undefined ? (typeof result.text === 'string' ? result.text : '') : answerText(result);
      const model = responseModel(result, id);
      return {
        text,
        ...(request.outputSchema === undefined ? {} : { output: parseReview(text, request.outputSchema, model) }),
        ...(usage === undefined ? {} : { usage }),
        model,
        ...responseDetails(result),
      };
    },
  };
}
