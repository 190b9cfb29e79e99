import { describe, expect, it } from 'vitest';
import {
  applyJsonPatch,
  DEFAULT_JSON_PATCH_LIMITS,
  type JsonPatchLimits,
} from '../../../src/harness/json-patch/index.js';
import { canonicalJson } from '../../../src/index.js';
import { patchError } from './helpers.js';

const bytes = (value: unknown): number => Buffer.byteLength(canonicalJson(value), 'utf8');

/** A string value whose canonical form is exactly `size` bytes (quotes included), using multi-byte characters. */
const valueOfBytes = (size: number): string => 'é'.repeat(Math.floor((size - 2) / 2)) + 'a'.repeat((size - 2) % 2);

function limitError(fn: () => unknown, limit: keyof JsonPatchLimits, operationIndex: number | null): void {
  const error = patchError(fn, 'limit_exceeded', operationIndex);
  expect(error.limit).toBe(limit);
  expect(error.message).toContain(`\`${limit}\``);
}

describe('applyJsonPatch — limits', () => {
  it('has frozen defaults that every limit falls back to', () => {
    expect(Object.isFrozen(DEFAULT_JSON_PATCH_LIMITS)).toBe(true);
    expect(Object.keys(DEFAULT_JSON_PATCH_LIMITS).sort()).toEqual([
      'maxDocumentBytes',
      'maxNestingDepth',
      'maxOperations',
      'maxPatchBytes',
      'maxPointerDepth',
      'maxValueBytes',
    ]);
  });

  it('maxOperations: allows exactly the limit, refuses one more before reading any operation', () => {
    const patch = Array.from({ length: 4 }, () => ({ op: 'test', path: '', value: {} }));

    expect(applyJsonPatch({}, patch.slice(0, 3), { maxOperations: 3 })).toEqual({});
    limitError(() => applyJsonPatch({}, patch, { maxOperations: 3 }), 'maxOperations', null);
  });

  it('maxPatchBytes: measured on the canonical UTF-8 patch, every member counted', () => {
    const patch = [
      { op: 'add', path: '/é', value: { z: 1, a: [true, null] }, note: 'ü' },
      { op: 'remove', path: '/é' },
    ];
    const size = bytes(patch);

    expect(applyJsonPatch({}, patch, { maxPatchBytes: size })).toEqual({});
    limitError(() => applyJsonPatch({}, patch, { maxPatchBytes: size - 1 }), 'maxPatchBytes', 1);
    // `[`, `,` and `]` count too: the first operation alone fits in its bytes + 3.
    limitError(() => applyJsonPatch({}, patch, { maxPatchBytes: bytes(patch[0]) + 3 }), 'maxPatchBytes', 1);
    limitError(() => applyJsonPatch({}, patch, { maxPatchBytes: bytes(patch[0]) + 2 }), 'maxPatchBytes', 0);
    limitError(() => applyJsonPatch({}, patch, { maxPatchBytes: 20 }), 'maxPatchBytes', 0);
  });

  it('maxPatchBytes: a huge pointer is refused by its size before it is split', () => {
    const path = '/a'.repeat(2_000_000);

    limitError(() => applyJsonPatch({}, [{ op: 'remove', path }]), 'maxPatchBytes', 0);
  });

  it('maxValueBytes: allows a value of exactly the limit, refuses one byte more', () => {
    const limit = 101;

    expect(
      applyJsonPatch({}, [{ op: 'add', path: '/v', value: valueOfBytes(limit) }], { maxValueBytes: limit }),
    ).toEqual({
      v: valueOfBytes(limit),
    });
    expect(bytes(valueOfBytes(limit))).toBe(limit);
    limitError(
      () => applyJsonPatch({}, [{ op: 'add', path: '/v', value: valueOfBytes(limit + 1) }], { maxValueBytes: limit }),
      'maxValueBytes',
      0,
    );
    limitError(
      () =>
        applyJsonPatch({ v: 1 }, [{ op: 'test', path: '/v', value: [valueOfBytes(limit)] }], { maxValueBytes: limit }),
      'maxValueBytes',
      0,
    );
  });

  it('maxPointerDepth: counts the tokens of `path` and of `from`', () => {
    const doc = { a: { b: { c: 1 } } };

    expect(applyJsonPatch(doc, [{ op: 'test', path: '/a/b/c', value: 1 }], { maxPointerDepth: 3 })).toBe(doc);
    limitError(
      () => applyJsonPatch(doc, [{ op: 'add', path: '/a/b/c/d', value: 1 }], { maxPointerDepth: 3 }),
      'maxPointerDepth',
      0,
    );
    limitError(
      () => applyJsonPatch(doc, [{ op: 'copy', from: '/a/b/c/d', path: '/x' }], { maxPointerDepth: 3 }),
      'maxPointerDepth',
      0,
    );
  });

  it('maxDocumentBytes: the input document, measured once up front', () => {
    const doc = { text: valueOfBytes(50), list: [1, -2.5, 1e21, 'ü'] };
    const size = bytes(doc);

    expect(applyJsonPatch(doc, [], { maxDocumentBytes: size })).toBe(doc);
    limitError(() => applyJsonPatch(doc, [], { maxDocumentBytes: size - 1 }), 'maxDocumentBytes', null);
  });

  it('maxDocumentBytes: the result, when the patch grows the document past the limit', () => {
    const doc = { a: 'x'.repeat(40) };
    const grown = { a: 'x'.repeat(40), b: 'y'.repeat(40) };

    expect(
      applyJsonPatch(doc, [{ op: 'add', path: '/b', value: 'y'.repeat(40) }], { maxDocumentBytes: bytes(grown) }),
    ).toEqual(grown);
    const error = patchError(
      () =>
        applyJsonPatch(doc, [{ op: 'add', path: '/b', value: 'y'.repeat(40) }], { maxDocumentBytes: bytes(grown) - 1 }),
      'limit_exceeded',
      null,
    );
    expect(error.reason).toContain('the result');
  });

  it('maxDocumentBytes: a result that shrinks back under the limit passes (growth is bounded, then measured)', () => {
    const limit = bytes({ a: 'x'.repeat(40) });

    const result = applyJsonPatch(
      { a: 'x'.repeat(40) },
      [
        { op: 'add', path: '/b', value: 'y'.repeat(40) },
        { op: 'remove', path: '/b' },
      ],
      { maxDocumentBytes: limit },
    );

    expect(result).toEqual({ a: 'x'.repeat(40) });
  });

  it('maxDocumentBytes: copies that double the document stop at the limit, however many there are', () => {
    // Each copy puts the whole document under a new key: 2^200 times the seed, shared structurally.
    const patch = Array.from({ length: 200 }, (_, i) => ({ op: 'copy', from: '', path: `/copy${i}` }));

    limitError(
      () => applyJsonPatch({ seed: 'x'.repeat(100) }, patch, { maxDocumentBytes: 1_000_000 }),
      'maxDocumentBytes',
      null,
    );
  });

  it('maxDocumentBytes: copies are counted exactly while under the limit', () => {
    const doc = { a: { text: 'x'.repeat(30) } };
    const patch = [{ op: 'copy', from: '/a', path: '/b' }];
    const expected = { a: { text: 'x'.repeat(30) }, b: { text: 'x'.repeat(30) } };

    expect(applyJsonPatch(doc, patch, { maxDocumentBytes: bytes(expected) })).toEqual(expected);
    limitError(() => applyJsonPatch(doc, patch, { maxDocumentBytes: bytes(expected) - 1 }), 'maxDocumentBytes', null);
  });

  it('maxNestingDepth: the document, each value and the result', () => {
    const nested = (levels: number): unknown => (levels === 0 ? 1 : [nested(levels - 1)]);

    expect(applyJsonPatch(nested(4), [], { maxNestingDepth: 4 })).toEqual(nested(4));
    limitError(() => applyJsonPatch(nested(5), [], { maxNestingDepth: 4 }), 'maxNestingDepth', null);
    limitError(
      () => applyJsonPatch({}, [{ op: 'add', path: '/a', value: nested(5) }], { maxNestingDepth: 4 }),
      'maxNestingDepth',
      0,
    );
    limitError(
      () => applyJsonPatch({ a: { b: {} } }, [{ op: 'add', path: '/a/b/c', value: nested(2) }], { maxNestingDepth: 4 }),
      'maxNestingDepth',
      null,
    );
    expect(
      applyJsonPatch({ a: { b: {} } }, [{ op: 'add', path: '/a/b/c', value: nested(1) }], { maxNestingDepth: 4 }),
    ).toEqual({
      a: { b: { c: [1] } },
    });
  });

  it('refuses a document nested deeper than the default limit without exhausting the stack', () => {
    let deep: unknown = 0;
    for (let i = 0; i < 100_000; i++) deep = [deep];

    limitError(() => applyJsonPatch(deep, []), 'maxNestingDepth', null);
  });

  it('turns a limit off with Infinity', () => {
    const big = { text: 'x'.repeat(DEFAULT_JSON_PATCH_LIMITS.maxValueBytes + 10) };

    expect(applyJsonPatch({}, [{ op: 'add', path: '/big', value: big }], { maxValueBytes: Infinity })).toEqual({ big });
    limitError(() => applyJsonPatch({}, [{ op: 'add', path: '/big', value: big }]), 'maxValueBytes', 0);
  });

  it.each([
    ['maxOperations', -1],
    ['maxPatchBytes', 1.5],
    ['maxValueBytes', Number.NaN],
    ['maxPointerDepth', '3'],
    ['maxDocumentBytes', Number.NEGATIVE_INFINITY],
    ['maxNestingDepth', 10_000],
  ] as const)('refuses limit %s = %s as invalid_limits', (name, value) => {
    const error = patchError(
      () => applyJsonPatch({}, [], { [name]: value } as unknown as Partial<JsonPatchLimits>),
      'invalid_limits',
      null,
    );
    expect(error.limit).toBe(name);
  });
});
