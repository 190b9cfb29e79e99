/**
 * AI SDK (and fetch) failures → the stable {@link ModelProviderError} hierarchy. Duck-typed on the
 * SDK's error names, so that nothing of `ai` is imported here. Aborts are never wrapped.
 */

import { unreadableArgument } from '../../invalid-argument.js';
import {
  ModelAuthError,
  ModelContextLengthError,
  ModelInvalidResponseError,
  ModelNetworkError,
  ModelProviderError,
  ModelRateLimitError,
} from './model-errors.js';

type Bag = Readonly<Record<string, unknown>>;

const INVALID_RESPONSE = new Set([
  'AI_NoContentGeneratedError',
  'AI_InvalidResponseDataError',
  'AI_JSONParseError',
  'AI_TypeValidationError',
  'AI_NoOutputGeneratedError',
  'AI_NoObjectGeneratedError',
  'AI_EmptyResponseBodyError',
]);
const NETWORK_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'ENOTFOUND', 'ETIMEDOUT', 'EAI_AGAIN', 'EPIPE']);
const CONTEXT_LENGTH =
  /context[ _-]?length|context window|maximum context|too many tokens|prompt is too long|input is too long/i;

function bag(value: unknown): Bag {
  return typeof value === 'object' && value !== null ? (value as Bag) : {};
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** True for an abort or timeout raised by an `AbortSignal`: such errors pass through untouched. */
export function isAbortError(error: unknown): boolean {
  const name = bag(error).name;
  return name === 'AbortError' || name === 'TimeoutError';
}

function retryAfterMs(headers: unknown): number | undefined {
  const h = bag(headers);
  const ms = Number(text(h['retry-after-ms']));
  if (text(h['retry-after-ms']) !== '' && Number.isFinite(ms) && ms >= 0) return ms;
  const seconds = Number(text(h['retry-after']));
  if (text(h['retry-after']) !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  return undefined;
}

function isNetworkFailure(error: unknown): boolean {
  for (let current: unknown = error, depth = 0; current !== undefined && depth < 4; depth++) {
    const b = bag(current);
    if (NETWORK_CODES.has(text(b.code))) return true;
    if (b.name === 'TypeError' && /fetch failed|network/i.test(text(b.message))) return true;
    current = b.cause;
  }
  return false;
}

function fromApiCall(error: Bag, model: string, cause: unknown): ModelProviderError {
  const statusCode = typeof error.statusCode === 'number' ? error.statusCode : undefined;
  const message = `Model \`${model}\` call failed${statusCode === undefined ? '' : ` with HTTP ${statusCode}`}: ${text(error.message)}`;
  const init = { message, model, cause, ...(statusCode === undefined ? {} : { statusCode }) };
  if (statusCode === 429) {
    const wait = retryAfterMs(error.responseHeaders);
    return new ModelRateLimitError(wait === undefined ? init : { ...init, retryAfterMs: wait });
  }
  if (statusCode === 401 || statusCode === 403) return new ModelAuthError(init);
  if (CONTEXT_LENGTH.test(`${text(error.message)} ${text(error.responseBody)}`))
    return new ModelContextLengthError(init);
  if (statusCode === undefined || statusCode === 408 || statusCode >= 500) return new ModelNetworkError(init);
  return new ModelProviderError({ ...init, retryable: error.isRetryable === true });
}

/**
 * Map a failure of an AI SDK call onto a {@link ModelProviderError} subclass: rate limit (429),
 * auth (401, 403, a missing API key), context length, invalid response (no content, bad JSON),
 * network (no connection, 5xx). A `RetryError` is mapped by its last error. Abort and timeout
 * errors, and errors that already are `ModelProviderError`s, are returned unchanged.
 *
 * @example
 * mapAiSdkError(apiCallError429, 'gpt-4o'); // ModelRateLimitError { statusCode: 429, retryable: true }
 */
export function mapAiSdkError(error: unknown, model: string): unknown {
  try {
    if (error instanceof ModelProviderError || isAbortError(error)) return error;
    const b = bag(error);
    const name = text(b.name);
    if (name === 'AI_RetryError' && b.lastError !== undefined) {
      const mapped = mapAiSdkError(b.lastError, model);
      return mapped === b.lastError ? error : mapped;
    }
    if (name === 'AI_APICallError') return fromApiCall(b, model, error);
    const message = `Model \`${model}\` call failed: ${text(b.message) || String(error)}`;
    if (name === 'AI_LoadAPIKeyError') return new ModelAuthError({ message, model, cause: error });
    if (INVALID_RESPONSE.has(name)) return new ModelInvalidResponseError({ message, model, cause: error });
    if (isNetworkFailure(error)) return new ModelNetworkError({ message, model, cause: error });
    return new ModelProviderError({ message, model, cause: error });
  } catch (cause) {
    return unreadableArgument('mapAiSdkError', 'error', cause);
  }
}
