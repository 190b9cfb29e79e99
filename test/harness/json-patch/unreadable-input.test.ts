import { describe, expect, it } from 'vitest';
import { applyJsonPatch, type JsonPatchLimits } from '../../../src/harness/json-patch/index.js';
import { patchError } from './helpers.js';

function boom(): never {
  throw new Error('boom');
}

/** An object every trap of which throws. */
const hostile = new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom });

describe('applyJsonPatch on inputs it cannot read', () => {
  it('refuses an operation whose getter throws as non_json_value, naming the operation', () => {
    const operation = {
      get op(): string {
        return boom();
      },
      path: '/a',
    };

    const error = patchError(
      () => applyJsonPatch({}, [{ op: 'add', path: '/b', value: 1 }, operation]),
      'non_json_value',
      1,
    );
    expect(error.reason).toMatch(/^the operation cannot be read \(a getter or Proxy trap threw: boom\)/);
    expect(error.cause).toBeInstanceOf(Error);
  });

  it('refuses a getter that throws on `value`', () => {
    const operation = {
      op: 'add',
      path: '/a',
      get value(): unknown {
        return boom();
      },
    };

    patchError(() => applyJsonPatch({}, [operation]), 'non_json_value', 0);
  });

  it('refuses a Proxy as an operation, as the patch and as the document', () => {
    patchError(() => applyJsonPatch({}, [hostile]), 'non_json_value', 0);
    patchError(() => applyJsonPatch({}, new Proxy([], { get: boom })), 'non_json_value', null);
    patchError(() => applyJsonPatch(hostile, [{ op: 'add', path: '/a', value: 1 }]), 'non_json_value', null);
  });

  it.each([null, 5, 'x', []])('refuses limits = %j as invalid_limits', (limits) => {
    const error = patchError(
      () => applyJsonPatch({}, [], limits as unknown as Partial<JsonPatchLimits>),
      'invalid_limits',
      null,
    );
    expect(error.reason).toMatch(/^the limits must be an object or omitted/);
  });

  it('refuses limits whose getter throws as invalid_limits, naming the limit', () => {
    const error = patchError(() => applyJsonPatch({}, [], hostile as Partial<JsonPatchLimits>), 'invalid_limits');
    expect(error.limit).toBe('maxOperations');
  });

  it('still applies a patch of plain values', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'replace', path: '/a', value: 2 }], {})).toEqual({ a: 2 });
  });
});
