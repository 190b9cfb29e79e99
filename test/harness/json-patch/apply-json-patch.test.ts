import { describe, expect, it } from 'vitest';
import { applyJsonPatch, type JsonValue } from '../../../src/harness/json-patch/apply-json-patch.js';
import { deepFreeze, patchError } from './helpers.js';

describe('applyJsonPatch — operations', () => {
  it('adds an object member, replacing one that exists', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/b', value: 2 }])).toEqual({ a: 1, b: 2 });
    expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/a', value: [3] }])).toEqual({ a: [3] });
  });

  it('inserts into an array at an index, at its length, or at `-`', () => {
    expect(applyJsonPatch([1, 3], [{ op: 'add', path: '/1', value: 2 }])).toEqual([1, 2, 3]);
    expect(applyJsonPatch([1], [{ op: 'add', path: '/1', value: 2 }])).toEqual([1, 2]);
    expect(applyJsonPatch({ a: [1] }, [{ op: 'add', path: '/a/-', value: [2] }])).toEqual({ a: [1, [2]] });
  });

  it('removes a member and an element, returning the rest', () => {
    expect(applyJsonPatch({ a: 1, b: 2 }, [{ op: 'remove', path: '/a' }])).toEqual({ b: 2 });
    expect(applyJsonPatch([1, 2, 3], [{ op: 'remove', path: '/1' }])).toEqual([1, 3]);
  });

  it('replaces a value that exists, and refuses one that does not', () => {
    expect(applyJsonPatch({ a: { b: 1 } }, [{ op: 'replace', path: '/a/b', value: null }])).toEqual({ a: { b: null } });
    patchError(() => applyJsonPatch({ a: {} }, [{ op: 'replace', path: '/a/b', value: 1 }]), 'path_not_found', 0);
    patchError(() => applyJsonPatch([1], [{ op: 'replace', path: '/1', value: 1 }]), 'path_not_found', 0);
  });

  it('moves a value, removing it first (so array indexes shift)', () => {
    const doc = { list: ['a', 'b', 'c', 'd'] };

    expect(applyJsonPatch(doc, [{ op: 'move', from: '/list/1', path: '/list/3' }])).toEqual({
      list: ['a', 'c', 'd', 'b'],
    });
    expect(applyJsonPatch({ a: { x: 1 }, b: {} }, [{ op: 'move', from: '/a/x', path: '/b/y' }])).toEqual({
      a: {},
      b: { y: 1 },
    });
  });

  it('copies a value, and later changes to the copy leave the source alone', () => {
    const result = applyJsonPatch({ a: { b: [1] } }, [
      { op: 'copy', from: '/a', path: '/c' },
      { op: 'add', path: '/c/b/-', value: 2 },
      { op: 'replace', path: '/a/b/0', value: 0 },
    ]);

    expect(result).toEqual({ a: { b: [0] }, c: { b: [1, 2] } });
  });

  it('copies a value into its own child (only `move` forbids that)', () => {
    const result = applyJsonPatch({ a: { x: 1 } }, [
      { op: 'replace', path: '/a/x', value: 2 }, // `a` is now a clone owned by this call
      { op: 'copy', from: '/a', path: '/a/self' },
    ]);

    expect(result).toEqual({ a: { x: 2, self: { x: 2 } } });
  });

  it('tests by JSON equality and stops the patch when unequal', () => {
    const doc = { n: 1, o: { a: [1, { b: true }], c: null }, s: '1' };

    expect(applyJsonPatch(doc, [{ op: 'test', path: '/o', value: { c: null, a: [1.0, { b: true }] } }])).toBe(doc);
    patchError(() => applyJsonPatch(doc, [{ op: 'test', path: '/n', value: '1' }]), 'test_failed', 0);
    patchError(() => applyJsonPatch(doc, [{ op: 'test', path: '/n', value: true }]), 'test_failed', 0);
    patchError(() => applyJsonPatch({ t: true }, [{ op: 'test', path: '/t', value: 1 }]), 'test_failed', 0);
    patchError(() => applyJsonPatch({ z: 0 }, [{ op: 'test', path: '/z', value: false }]), 'test_failed', 0);
    patchError(() => applyJsonPatch({ z: null }, [{ op: 'test', path: '/z', value: {} }]), 'test_failed', 0);
    patchError(
      () => applyJsonPatch({ o: { a: 1 } }, [{ op: 'test', path: '/o', value: { a: 1, b: 2 } }]),
      'test_failed',
    );
    patchError(() => applyJsonPatch({ o: [1, 2] }, [{ op: 'test', path: '/o', value: [2, 1] }]), 'test_failed');
    patchError(() => applyJsonPatch({ o: [] }, [{ op: 'test', path: '/o', value: {} }]), 'test_failed');
  });

  it('quotes a short value a failed test found, and only describes a long one', () => {
    const short = patchError(
      () => applyJsonPatch({ n: [1, 'x'] }, [{ op: 'test', path: '/n', value: [1] }]),
      'test_failed',
    );
    const long = patchError(
      () => applyJsonPatch({ n: 'x'.repeat(500) }, [{ op: 'test', path: '/n', value: 'y' }]),
      'test_failed',
    );

    expect(short.reason).toBe('the value at `/n` is `[1,"x"]`, not equal to `value`');
    expect(long.reason).toBe('the value at `/n` is a long string, not equal to `value`');
  });

  it('names the failing operation and applies nothing when a later operation fails', () => {
    const doc = deepFreeze({ a: 1 });

    const error = patchError(
      () =>
        applyJsonPatch(doc, [
          { op: 'add', path: '/b', value: 2 },
          { op: 'remove', path: '/missing' },
        ]),
      'path_not_found',
      1,
    );

    expect(error.operation).toEqual({ op: 'remove', path: '/missing' });
    expect(error.reason).toContain('`missing`');
    expect(error.message).toMatch(/^JSON Patch operation 1 `remove` at `\/missing` refused: /);
    expect(error.llmMessage).toBe(error.message);
    expect(doc).toEqual({ a: 1 });
  });
});

describe('applyJsonPatch — the root', () => {
  it('replaces the whole document with add and replace, whatever its type', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '', value: [1] }])).toEqual([1]);
    expect(applyJsonPatch('foo', [{ op: 'replace', path: '', value: 'bar' }])).toBe('bar');
    expect(applyJsonPatch(3, [{ op: 'replace', path: '', value: { a: null } }])).toEqual({ a: null });
  });

  it('tests the whole document', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'test', path: '', value: { a: 1 } }])).toEqual({ a: 1 });
    patchError(() => applyJsonPatch({ a: 1 }, [{ op: 'test', path: '', value: { a: 2 } }]), 'test_failed', 0);
  });

  it('moves and copies a member to the root', () => {
    expect(applyJsonPatch({ a: { b: 1 }, c: 2 }, [{ op: 'move', from: '/a', path: '' }])).toEqual({ b: 1 });
    expect(applyJsonPatch({ a: [1] }, [{ op: 'copy', from: '/a', path: '' }])).toEqual([1]);
  });

  it('copies the root into a member of itself', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'copy', from: '', path: '/self' }])).toEqual({ a: 1, self: { a: 1 } });
  });

  it('refuses to remove the root, to move the root into itself, and writes below a scalar root', () => {
    const error = patchError(() => applyJsonPatch({ a: 1 }, [{ op: 'remove', path: '' }]), 'invalid_patch', 0);
    expect(error.message).toMatch(/^JSON Patch operation 0 `remove` at `""` refused: /);
    patchError(() => applyJsonPatch({ a: 1 }, [{ op: 'move', from: '', path: '/a' }]), 'invalid_patch', 0);
    patchError(() => applyJsonPatch('text', [{ op: 'add', path: '/a', value: 1 }]), 'path_not_found', 0);
  });

  it('treats a move from the root to the root as a no-op', () => {
    const doc = { a: 1 };

    expect(applyJsonPatch(doc, [{ op: 'move', from: '', path: '' }])).toBe(doc);
  });
});

describe('applyJsonPatch — pointers and array indexes', () => {
  const doc = { 'a/b': 1, 'c~d': 2, '~1': 3, '': 4, arr: ['x', 'y'] };

  it('decodes `~1` as `/` and `~0` as `~`, in that order', () => {
    expect(applyJsonPatch(doc, [{ op: 'test', path: '/a~1b', value: 1 }])).toBe(doc);
    expect(applyJsonPatch(doc, [{ op: 'test', path: '/c~0d', value: 2 }])).toBe(doc);
    expect(applyJsonPatch(doc, [{ op: 'test', path: '/~01', value: 3 }])).toBe(doc);
    expect(applyJsonPatch(doc, [{ op: 'test', path: '/', value: 4 }])).toBe(doc);
  });

  it.each(['/a~2b', '/a~', '/~', '/x/~a', '/~~0'])('refuses `~` not followed by 0 or 1 in %s', (path) => {
    patchError(() => applyJsonPatch(doc, [{ op: 'add', path, value: 1 }]), 'invalid_pointer', 0);
  });

  it('refuses a pointer that does not start with `/`, in `path` and in `from`', () => {
    patchError(() => applyJsonPatch(doc, [{ op: 'remove', path: 'arr' }]), 'invalid_pointer', 0);
    patchError(() => applyJsonPatch(doc, [{ op: 'copy', from: 'arr', path: '/z' }]), 'invalid_pointer', 0);
  });

  it.each(['01', '00', '1e0', '+1', '-1', ' 1', '1 ', '0x1', '1.0', 'foo', ''])(
    'refuses array token `%s` (digits without a leading zero only)',
    (token) => {
      patchError(() => applyJsonPatch(doc, [{ op: 'replace', path: `/arr/${token}`, value: 1 }]), 'invalid_pointer', 0);
    },
  );

  it('accepts leading-zero and non-numeric tokens as object member names', () => {
    expect(applyJsonPatch({}, [{ op: 'add', path: '/01', value: 1 }])).toEqual({ '01': 1 });
  });

  it('refuses an index past the end (add allows exactly the length)', () => {
    patchError(() => applyJsonPatch(doc, [{ op: 'add', path: '/arr/3', value: 1 }]), 'path_not_found', 0);
    patchError(() => applyJsonPatch(doc, [{ op: 'remove', path: '/arr/2' }]), 'path_not_found', 0);
    patchError(
      () => applyJsonPatch(doc, [{ op: 'test', path: '/arr/99999999999999999999', value: 1 }]),
      'path_not_found',
    );
  });

  it('allows `-` only as the last token of an `add`', () => {
    for (const operation of [
      { op: 'remove', path: '/arr/-' },
      { op: 'replace', path: '/arr/-', value: 1 },
      { op: 'test', path: '/arr/-', value: 'y' },
      { op: 'copy', from: '/arr/-', path: '/z' },
      { op: 'move', from: '/arr/-', path: '/z' },
      { op: 'add', path: '/arr/-/0', value: 1 },
    ]) {
      patchError(() => applyJsonPatch(doc, [operation]), 'path_not_found', 0);
    }
  });

  it('refuses a move into the moved value’s own child, but not into a sibling sharing a name prefix', () => {
    const error = patchError(
      () => applyJsonPatch({ a: { b: {} } }, [{ op: 'move', from: '/a', path: '/a/b/c' }]),
      'invalid_patch',
      0,
    );
    expect(error.reason).toContain('own child');

    expect(applyJsonPatch({ a: 1 }, [{ op: 'move', from: '/a', path: '/ab' }])).toEqual({ ab: 1 });
  });

  it('follows only own members: `constructor` and `toString` are absent from `{}`', () => {
    patchError(() => applyJsonPatch({}, [{ op: 'test', path: '/constructor', value: {} }]), 'path_not_found', 0);
    patchError(() => applyJsonPatch({}, [{ op: 'remove', path: '/toString' }]), 'path_not_found', 0);
    patchError(() => applyJsonPatch({}, [{ op: 'add', path: '/__proto__/x', value: 1 }]), 'path_not_found', 0);
  });
});

describe('applyJsonPatch — patch shape', () => {
  it.each([
    ['not an array', { op: 'add', path: '/a', value: 1 }, null],
    ['an operation that is not an object', [['add', '/a', 1]], 0],
    ['an operation that is null', [null], 0],
    ['an unknown op', [{ op: 'merge', path: '/a', value: 1 }], 0],
    ['a missing op', [{ path: '/a', value: 1 }], 0],
    ['an op of the wrong case', [{ op: 'Add', path: '/a', value: 1 }], 0],
    ['a missing path', [{ op: 'remove' }], 0],
    ['a numeric path', [{ op: 'remove', path: 0 }], 0],
    ['a missing from', [{ op: 'copy', path: '/b' }], 0],
    ['a missing value', [{ op: 'add', path: '/b' }], 0],
    ['an undefined value', [{ op: 'replace', path: '/a', value: undefined }], 0],
    [
      'a bad second operation',
      [
        { op: 'test', path: '/a', value: 1 },
        { op: 'move', path: '/b' },
      ],
      1,
    ],
  ])('refuses %s as invalid_patch', (_name, patch, index) => {
    patchError(() => applyJsonPatch({ a: 1 }, patch), 'invalid_patch', index);
  });

  it('ignores members it does not know', () => {
    expect(applyJsonPatch({ a: 1 }, [{ op: 'add', path: '/b', value: 2, note: 'why' }])).toEqual({ a: 1, b: 2 });
  });

  it('refuses an operation that is not a plain object (its `value` would be inherited)', () => {
    const inherited = Object.assign(Object.create({ value: 2 }) as object, { op: 'add', path: '/b' });

    patchError(() => applyJsonPatch({ a: 1 }, [inherited]), 'invalid_patch', 0);
  });

  it('returns an equal document for an empty patch', () => {
    const doc: JsonValue = { a: [1, { b: 'c' }] };

    expect(applyJsonPatch(doc, [])).toEqual({ a: [1, { b: 'c' }] });
  });
});
