/**
 * Aborts are the framework's control flow: adapters re-throw them instead of answering the model.
 */

/** True for an abort: the signal fired, or the error is an `AbortError` (DOM or the OpenAI client's). */
export function isAbortError(error: unknown, signal?: AbortSignal): boolean {
  if (signal?.aborted === true) return true;
  if (error === null || typeof error !== 'object') return false;
  const name = (error as { name?: unknown }).name;
  return name === 'AbortError' || name === 'APIUserAbortError';
}
