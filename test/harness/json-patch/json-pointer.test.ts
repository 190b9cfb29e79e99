import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  formatJsonPointer,
  getByPointer,
  JsonPatchError,
  jsonEquals,
  parseJsonPointer,
} from '../../../src/harness/json-patch/index.js';
import { patchError } from './helpers.js';

describe('parseJsonPointer / formatJsonPointer', () => {
  it('parses the RFC 6901 examples', () => {
    expect(parseJsonPointer('')).toEqual([]);
    expect(parseJsonPointer('/')).toEqual(['']);
    expect(parseJsonPointer('/foo/0')).toEqual(['foo', '0']);
    expect(parseJsonPointer('/a~1b')).toEqual(['a/b']);
    expect(parseJsonPointer('/m~0n')).toEqual(['m~n']);
    expect(parseJsonPointer('/~01')).toEqual(['~1']);
    expect(parseJsonPointer('//x/')).toEqual(['', 'x', '']);
  });

  it.each(['a', '#/a', '/~', '/~2', '/a~b'])('refuses `%s` with invalid_pointer', (pointer) => {
    const error = patchError(() => parseJsonPointer(pointer), 'invalid_pointer', null);
    expect(error).toBeInstanceOf(JsonPatchError);
  });

  it('formats tokens, escaping `~` before `/`', () => {
    expect(formatJsonPointer([])).toBe('');
    expect(formatJsonPointer(['a/b', '~c', 0, '~1'])).toBe('/a~1b/~0c/0/~01');
  });

  it('round-trips any tokens (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: 'binary', maxLength: 5 }), { maxLength: 5 }), (tokens) => {
        expect(parseJsonPointer(formatJsonPointer(tokens))).toEqual(tokens);
      }),
    );
  });
});

describe('getByPointer', () => {
  const doc = { a: [{ b: 1 }, null], 'x/y': { '~': false }, '': 0 };

  it('resolves members, elements, escapes and the root', () => {
    expect(getByPointer(doc, '/a/0/b')).toBe(1);
    expect(getByPointer(doc, '/a/1')).toBeNull();
    expect(getByPointer(doc, '/x~1y/~0')).toBe(false);
    expect(getByPointer(doc, '/')).toBe(0);
    expect(getByPointer(doc, '')).toBe(doc);
    expect(getByPointer(doc, ['x/y', '~'])).toBe(false);
  });

  it('returns undefined for what is not there, including inherited names and `-`', () => {
    for (const pointer of [
      '/missing',
      '/a/2',
      '/a/-',
      '/a/01',
      '/a/0/b/c',
      '/constructor',
      '/a/length',
      '/__proto__',
    ]) {
      expect(getByPointer(doc, pointer)).toBeUndefined();
    }
  });

  it('throws invalid_pointer for a malformed pointer', () => {
    patchError(() => getByPointer(doc, 'a'), 'invalid_pointer', null);
  });
});

describe('jsonEquals', () => {
  it.each([
    [1, 1.0, true],
    [0, -0, true],
    [1, true, false],
    [0, false, false],
    [null, false, false],
    [null, {}, false],
    ['1', 1, false],
    [[], {}, false],
    [{}, [], false],
    [[1, [2]], [1, [2]], true],
    [[1, 2], [2, 1], false],
    [{ a: 1, b: { c: [null] } }, { b: { c: [null] }, a: 1 }, true],
    [{ a: 1 }, { a: 1, b: 1 }, false],
    [{ a: 1, b: 1 }, { a: 1, c: 1 }, false],
    [{ a: undefined }, { b: undefined }, false],
  ])('jsonEquals(%j, %j) is %s', (left, right, expected) => {
    expect(jsonEquals(left, right)).toBe(expected);
    expect(jsonEquals(right, left)).toBe(expected);
  });
});
