import { expect } from 'vitest';
import { JsonPatchError } from '../../../src/harness/json-patch/index.js';

/** The error `fn` throws; fails the test when it returns. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

/** The {@link JsonPatchError} `fn` throws, checked to carry `code` (and `operationIndex` when given). */
export function patchError(fn: () => unknown, code: string, operationIndex?: number | null): JsonPatchError {
  const error = thrown(fn);
  expect(error).toBeInstanceOf(JsonPatchError);
  const patchError = error as JsonPatchError;
  expect(patchError.code).toBe(code);
  if (operationIndex !== undefined) expect(patchError.operationIndex).toBe(operationIndex);
  return patchError;
}

export { deepFreeze } from '../../../src/core/deep-freeze.js';
