import { APICallError, LoadAPIKeyError, NoContentGeneratedError, RetryError } from 'ai';
import { describe, expect, it } from 'vitest';
import {
  ModelAuthError,
  ModelContextLengthError,
  ModelInvalidResponseError,
  ModelNetworkError,
  ModelProviderError,
  ModelRateLimitError,
  mapAiSdkError,
} from '../../src/harness/index.js';

function apiError(statusCode: number | undefined, message = 'refused', responseBody?: string) {
  return new APICallError({
    message,
    url: 'https://provider.test',
    requestBodyValues: {},
    ...(statusCode === undefined ? {} : { statusCode }),
    ...(responseBody === undefined ? {} : { responseBody }),
  });
}

describe('mapAiSdkError', () => {
  it('maps HTTP failures by status and body', () => {
    expect(mapAiSdkError(apiError(429), 'm')).toBeInstanceOf(ModelRateLimitError);
    expect(mapAiSdkError(apiError(403), 'm')).toBeInstanceOf(ModelAuthError);
    expect(mapAiSdkError(apiError(400, 'bad', '{"code":"context_length_exceeded"}'), 'm')).toBeInstanceOf(
      ModelContextLengthError,
    );
    expect(mapAiSdkError(apiError(503), 'm')).toBeInstanceOf(ModelNetworkError);
    const other = mapAiSdkError(apiError(422), 'm');
    expect(other).toBeInstanceOf(ModelProviderError);
    expect(other).toMatchObject({ kind: 'provider', statusCode: 422, code: 'model_provider' });
  });

  it('maps a retry error by its last error, and SDK errors by name', () => {
    const retry = new RetryError({
      message: 'gave up',
      reason: 'maxRetriesExceeded',
      errors: [apiError(500), apiError(429)],
    });

    expect(mapAiSdkError(retry, 'm')).toBeInstanceOf(ModelRateLimitError);
    expect(mapAiSdkError(new LoadAPIKeyError({ message: 'no key' }), 'm')).toBeInstanceOf(ModelAuthError);
    expect(mapAiSdkError(new NoContentGeneratedError(), 'm')).toBeInstanceOf(ModelInvalidResponseError);
  });

  it('maps connection failures to network errors, keeping the cause', () => {
    const reset = Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
    const fetchFailed = new TypeError('fetch failed', { cause: reset });

    const mapped = mapAiSdkError(fetchFailed, 'gpt');

    expect(mapped).toBeInstanceOf(ModelNetworkError);
    expect(mapped).toMatchObject({ model: 'gpt', retryable: true });
    expect((mapped as Error).cause).toBe(fetchFailed);
  });

  it('never wraps aborts, timeouts or errors already mapped', () => {
    const abort = new DOMException('aborted', 'AbortError');
    const timeout = new DOMException('timed out', 'TimeoutError');
    const mapped = new ModelAuthError({ message: 'x' });

    expect(mapAiSdkError(abort, 'm')).toBe(abort);
    expect(mapAiSdkError(timeout, 'm')).toBe(timeout);
    expect(mapAiSdkError(mapped, 'm')).toBe(mapped);
  });
});
