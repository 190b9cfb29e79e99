/**
 * Reading the usage a provider reports after a model call, whatever its shape: OpenAI Chat
 * Completions, OpenAI Responses, Anthropic Messages, and the AI SDK (v4 `promptTokens`, v5/v6
 * `inputTokens` with `inputTokenDetails`, and the provider-level v3 spec's nested
 * `inputTokens: { total, noCache, cacheRead, cacheWrite }`).
 */
import { type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';
import { errorMessage } from './verdict.js';

const USAGE_STATUSES = ['ok', 'missing', 'invalid'] as const;
/** Whether a usage object could be read. */
export const UsageStatus: Vocabulary<typeof USAGE_STATUSES> = vocabulary(USAGE_STATUSES);
/** Whether a usage object could be read. */
export type UsageStatus = ValueOf<typeof UsageStatus>;

const USAGE_FORMATS = ['openai_chat', 'openai_responses', 'anthropic', 'ai_sdk', 'ai_sdk_nested', 'ai_sdk_v4'] as const;
/** The shape a usage object was read as. */
export const UsageFormat: Vocabulary<typeof USAGE_FORMATS> = vocabulary(USAGE_FORMATS);
/** The shape a usage object was read as. */
export type UsageFormat = ValueOf<typeof UsageFormat>;

/** Token counts of one call, normalised. Reasoning tokens are part of `outputTokens`. */
export interface UsageCounts {
  readonly status: 'ok';
  readonly format: UsageFormat;
  /** Every input token, cached reads and cache writes included. */
  readonly inputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
}

/** The result of {@link readUsage}. */
export type UsageReading =
  | UsageCounts
  | { readonly status: 'missing' }
  | { readonly status: 'invalid'; readonly reason: string };

class InvalidUsage extends Error {}

type Bag = Readonly<Record<string, unknown>>;

function isBag(value: unknown): value is Bag {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function num(bag: Bag | undefined, key: string, path: string): number | undefined {
  const value = bag?.[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    const shown = typeof value === 'number' ? String(value) : JSON.stringify(value);
    throw new InvalidUsage(`\`${path}\` must be a finite, non-negative number (got \`${shown}\`)`);
  }
  // -0 would turn into 0 in a stored log, and its replay would then differ from the record.
  return value === 0 ? 0 : value;
}

function sub(bag: Bag, key: string): Bag | undefined {
  const value = bag[key];
  if (value === undefined || value === null) return undefined;
  if (!isBag(value)) throw new InvalidUsage(`\`${key}\` must be an object`);
  return value;
}

interface Parts {
  readonly format: UsageFormat;
  readonly input: number | undefined;
  readonly output: number | undefined;
  readonly cached?: number | undefined;
  readonly write?: number | undefined;
  readonly reasoning?: number | undefined;
}

function sumDefined(...values: (number | undefined)[]): number | undefined {
  return values.some((v) => v !== undefined) ? values.reduce<number>((a, v) => a + (v ?? 0), 0) : undefined;
}

function aiSdkNested(u: Bag): Parts {
  const input = isBag(u.inputTokens) ? u.inputTokens : undefined;
  const output = isBag(u.outputTokens) ? u.outputTokens : undefined;
  const cached = num(input, 'cacheRead', 'inputTokens.cacheRead');
  const write = num(input, 'cacheWrite', 'inputTokens.cacheWrite');
  const reasoning = num(output, 'reasoning', 'outputTokens.reasoning');
  return {
    format: UsageFormat.ai_sdk_nested,
    input:
      num(input, 'total', 'inputTokens.total') ??
      sumDefined(num(input, 'noCache', 'inputTokens.noCache'), cached, write),
    output:
      num(output, 'total', 'outputTokens.total') ?? sumDefined(num(output, 'text', 'outputTokens.text'), reasoning),
    cached,
    write,
    reasoning,
  };
}

function aiSdk(u: Bag): Parts {
  if (isBag(u.inputTokens) || isBag(u.outputTokens)) return aiSdkNested(u);
  const inDetails = sub(u, 'inputTokenDetails');
  const outDetails = sub(u, 'outputTokenDetails');
  return {
    format: UsageFormat.ai_sdk,
    input: num(u, 'inputTokens', 'inputTokens'),
    output: num(u, 'outputTokens', 'outputTokens'),
    cached:
      num(inDetails, 'cacheReadTokens', 'inputTokenDetails.cacheReadTokens') ??
      num(u, 'cachedInputTokens', 'cachedInputTokens'),
    write: num(inDetails, 'cacheWriteTokens', 'inputTokenDetails.cacheWriteTokens'),
    reasoning:
      num(outDetails, 'reasoningTokens', 'outputTokenDetails.reasoningTokens') ??
      num(u, 'reasoningTokens', 'reasoningTokens'),
  };
}

/**
 * An OpenAI usage (Responses or Chat Completions): the `input` and `output` counts, cache reads in
 * `<input>_details.cached_tokens` and reasoning in `<output>_details.reasoning_tokens`.
 */
function openAi(u: Bag, format: UsageFormat, input: string, output: string): Parts {
  const inDetails = `${input}_details`;
  const outDetails = `${output}_details`;
  return {
    format,
    input: num(u, input, input),
    output: num(u, output, output),
    cached: num(sub(u, inDetails), 'cached_tokens', `${inDetails}.cached_tokens`),
    reasoning: num(sub(u, outDetails), 'reasoning_tokens', `${outDetails}.reasoning_tokens`),
  };
}

function parts(u: Bag): Parts | null {
  if ('cache_read_input_tokens' in u || 'cache_creation_input_tokens' in u) {
    // Anthropic's `input_tokens` leaves out cache reads and cache writes; they are added here.
    const cached = num(u, 'cache_read_input_tokens', 'cache_read_input_tokens');
    const write = num(u, 'cache_creation_input_tokens', 'cache_creation_input_tokens');
    const input = num(u, 'input_tokens', 'input_tokens');
    const output = num(u, 'output_tokens', 'output_tokens');
    return {
      format: UsageFormat.anthropic,
      input: input === undefined ? undefined : input + (cached ?? 0) + (write ?? 0),
      output,
      cached,
      write,
    };
  }
  if ('input_tokens' in u || 'output_tokens' in u) {
    return openAi(u, UsageFormat.openai_responses, 'input_tokens', 'output_tokens');
  }
  if ('prompt_tokens' in u || 'completion_tokens' in u) {
    return openAi(u, UsageFormat.openai_chat, 'prompt_tokens', 'completion_tokens');
  }
  if ('inputTokens' in u || 'outputTokens' in u) return aiSdk(u);
  if ('promptTokens' in u || 'completionTokens' in u) {
    return {
      format: UsageFormat.ai_sdk_v4,
      input: num(u, 'promptTokens', 'promptTokens'),
      output: num(u, 'completionTokens', 'completionTokens'),
    };
  }
  return null;
}

/**
 * Read a provider's usage object. An absent usage, an unknown shape, or one without both input and
 * output counts is `missing` (the budget then books the reservation); a negative, non-finite or
 * non-numeric count, or cached tokens above the input, is `invalid`. Never throws.
 *
 * @example
 * readUsage({ prompt_tokens: 120, completion_tokens: 30, prompt_tokens_details: { cached_tokens: 100 } });
 * // { status: 'ok', format: 'openai_chat', inputTokens: 120, cachedInputTokens: 100, outputTokens: 30, … }
 */
export function readUsage(usage: unknown): UsageReading {
  if (!isBag(usage)) return { status: UsageStatus.missing };
  let found: Parts | null;
  try {
    found = parts(usage);
  } catch (error) {
    // A throwing getter or proxy is as unreadable as a negative count.
    return { status: UsageStatus.invalid, reason: errorMessage(error) };
  }
  if (found === null || found.input === undefined || found.output === undefined) return { status: UsageStatus.missing };
  const cached = found.cached ?? 0;
  const write = found.write ?? 0;
  if (cached + write > found.input) {
    return {
      status: UsageStatus.invalid,
      reason: `Cached and cache-write tokens (${cached + write}) exceed the input tokens (${found.input})`,
    };
  }
  return {
    status: UsageStatus.ok,
    format: found.format,
    inputTokens: found.input,
    cachedInputTokens: cached,
    cacheWriteTokens: write,
    outputTokens: found.output,
    reasoningTokens: found.reasoning ?? 0,
  };
}
