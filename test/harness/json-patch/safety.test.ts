import { describe, expect, it } from 'vitest';
import { applyJsonPatch } from '../../../src/harness/json-patch/index.js';
import { deepFreeze, patchError } from './helpers.js';

class Point {
  readonly x = 1;
}

class Tuple extends Array<number> {}

const cyclic = (): Record<string, unknown> => {
  const node: Record<string, unknown> = { name: 'loop' };
  node.self = { again: node };
  return node;
};

const sparse = (): unknown[] => {
  const array: unknown[] = [1];
  array[2] = 3; // index 1 is a hole
  return array;
};

const NON_JSON: readonly [string, () => unknown][] = [
  ['NaN', () => Number.NaN],
  ['Infinity', () => Number.POSITIVE_INFINITY],
  ['-Infinity', () => Number.NEGATIVE_INFINITY],
  ['undefined', () => undefined],
  ['a function', () => () => 1],
  ['a symbol', () => Symbol('s')],
  ['a bigint', () => 1n],
  ['a Date', () => new Date(0)],
  ['a Map', () => new Map([['a', 1]])],
  ['a Set', () => new Set([1])],
  ['a class instance', () => new Point()],
  ['a boxed string', () => new String('s')],
  ['a typed array', () => new Uint8Array(2)],
  ['a regular expression', () => /a/],
  ['a cycle', cyclic],
  ['a sparse array', sparse],
  ['an Array subclass', () => Tuple.from([1, 2])],
];

describe('applyJsonPatch — values JSON cannot hold', () => {
  it.each(NON_JSON)('refuses %s inside the document, naming where', (_name, make) => {
    const error = patchError(() => applyJsonPatch({ ok: [1, { bad: make() }] }, []), 'non_json_value', null);

    expect(error.reason).toContain('the document at `/ok/1/bad');
  });

  it.each(NON_JSON)('refuses %s inside an operation value, naming the operation', (_name, make) => {
    const patch = [
      { op: 'add', path: '/a', value: 1 },
      { op: 'add', path: '/b', value: { nested: [make()] } },
    ];

    const error = patchError(() => applyJsonPatch({}, patch), 'non_json_value', 1);

    expect(error.reason).toContain('`value` at `/nested/0');
  });

  it('refuses a non-JSON member the operation does not use', () => {
    patchError(() => applyJsonPatch({}, [{ op: 'remove', path: '/a', value: undefined }]), 'non_json_value', 0);
    patchError(() => applyJsonPatch({}, [{ op: 'add', path: '/a', value: 1, extra: Number.NaN }]), 'non_json_value', 0);
  });

  it('reports a cycle as a cycle, even one that reaches back to the root', () => {
    const error = patchError(() => applyJsonPatch(cyclic(), []), 'non_json_value', null);

    expect(error.reason).toContain('cycle');
  });

  it('accepts the same object twice (a shared subtree is not a cycle) and null-prototype objects', () => {
    const shared = { v: 1 };
    const bare = Object.assign(Object.create(null) as Record<string, unknown>, { k: 'v' });

    expect(applyJsonPatch({ a: shared, b: shared, c: bare }, [{ op: 'replace', path: '/a/v', value: 2 }])).toEqual({
      a: { v: 2 },
      b: { v: 1 },
      c: { k: 'v' },
    });
    expect(shared).toEqual({ v: 1 });
  });

  it('turns a throwing getter into a non_json_value error', () => {
    const doc = Object.defineProperty({}, 'boom', {
      enumerable: true,
      get() {
        throw new Error('no');
      },
    });

    patchError(() => applyJsonPatch(doc, []), 'non_json_value', null);
  });
});

describe('applyJsonPatch — inputs are never written', () => {
  it('leaves a deep-frozen document and patch as they were, and shares untouched subtrees', () => {
    const doc = deepFreeze({ keep: { big: [1, 2, 3] }, edit: { list: [1], n: 0 } });
    const patch = deepFreeze([
      { op: 'add', path: '/edit/list/-', value: { added: true } },
      { op: 'replace', path: '/edit/n', value: 1 },
      { op: 'move', from: '/edit/list/0', path: '/moved' },
      { op: 'copy', from: '/keep', path: '/edit/copy' },
      { op: 'remove', path: '/edit/copy/big/0' },
    ]);
    const before = structuredClone(doc);

    const result = applyJsonPatch(doc, patch) as Record<string, Record<string, unknown>>;

    expect(doc).toEqual(before);
    expect(result).toEqual({
      keep: { big: [1, 2, 3] },
      edit: { list: [{ added: true }], n: 1, copy: { big: [2, 3] } },
      moved: 1,
    });
    expect(result.keep).toBe(doc.keep);
    expect(Object.isFrozen(result)).toBe(false);
    expect(Object.isFrozen(result.edit)).toBe(false);
  });

  it('holds patch values by reference but never writes them when a later operation edits inside', () => {
    const value = deepFreeze({ inner: { n: 1 } });

    const result = applyJsonPatch({}, [
      { op: 'add', path: '/v', value },
      { op: 'replace', path: '/v/inner/n', value: 2 },
    ]);

    expect(result).toEqual({ v: { inner: { n: 2 } } });
    expect(value).toEqual({ inner: { n: 1 } });
  });
});

describe('applyJsonPatch — prototype names are plain member names', () => {
  it('adds `__proto__` as an own data property, leaving prototypes alone', () => {
    const result = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as object;

    expect(Object.hasOwn(result, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(result, '__proto__')?.value).toEqual({ polluted: true });
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(JSON.stringify(result)).toBe('{"__proto__":{"polluted":true}}');
  });

  it('writes through an own `__proto__` member, as JSON.parse makes one', () => {
    const doc = JSON.parse('{"__proto__":{"a":1}}') as unknown;

    const result = applyJsonPatch(doc, [
      { op: 'add', path: '/__proto__/polluted', value: 'yes' },
      { op: 'replace', path: '/__proto__/a', value: 2 },
    ]) as object;

    expect(JSON.stringify(result)).toBe('{"__proto__":{"a":2,"polluted":"yes"}}');
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
  });

  it('sets `constructor`, `prototype`, `toString` and `hasOwnProperty` as own members', () => {
    const result = applyJsonPatch({ a: 1 }, [
      { op: 'add', path: '/constructor', value: { prototype: { polluted: 1 } } },
      { op: 'add', path: '/constructor/prototype/polluted2', value: 2 },
      { op: 'add', path: '/toString', value: 'text' },
      { op: 'add', path: '/hasOwnProperty', value: 3 },
      { op: 'copy', from: '/constructor', path: '/prototype' },
      { op: 'move', from: '/a', path: '/valueOf' },
    ]) as Record<string, unknown>;

    expect(result).toEqual({
      constructor: { prototype: { polluted: 1, polluted2: 2 } },
      toString: 'text',
      hasOwnProperty: 3,
      prototype: { prototype: { polluted: 1, polluted2: 2 } },
      valueOf: 1,
    });
    expect(Object.getPrototypeOf(result)).toBe(Object.prototype);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    expect(Object.prototype.toString).toBeTypeOf('function');
    expect(Object.keys(Object.prototype)).toEqual([]);
  });

  it('removes and tests an own `__proto__` member', () => {
    const doc = JSON.parse('{"__proto__":1,"b":2}') as unknown;

    expect(applyJsonPatch(doc, [{ op: 'test', path: '/__proto__', value: 1 }])).toBe(doc);
    expect(JSON.stringify(applyJsonPatch(doc, [{ op: 'remove', path: '/__proto__' }]))).toBe('{"b":2}');
  });
});
