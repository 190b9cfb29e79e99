import { readdirSync, readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanonicalJsonError, canonicalJson } from '../../src/index.js';

const jcsRoot = new URL('../../../shared/conformance/jcs/', import.meta.url);
// Enumerated, not listed by hand, so a vector added to the shared data is picked up.
const vectors = readdirSync(new URL('input/', jcsRoot))
  .filter((name) => name.endsWith('.json'))
  .sort();

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

describe('canonicalJson — RFC 8785 conformance vectors', () => {
  it('finds at least the six upstream vectors', () => {
    expect(vectors.length).toBeGreaterThanOrEqual(6);
  });

  it.each(vectors)('%s serialises to the exact expected bytes', (name) => {
    const input = readFileSync(new URL(`input/${name}`, jcsRoot), 'utf8');
    const expected = readFileSync(new URL(`output/${name}`, jcsRoot));

    const actual = Buffer.from(canonicalJson(JSON.parse(input)), 'utf8');

    expect(actual.equals(expected)).toBe(true);
    expect(actual.toString('utf8')).toBe(expected.toString('utf8'));
  });
});

describe('canonicalJson — values with no JSON form', () => {
  const cyclic: Record<string, unknown> = { a: 1 };
  cyclic.self = cyclic;
  const cycleInArray: unknown[] = [];
  cycleInArray.push({ back: cycleInArray });

  it.each<[string, unknown, string]>([
    ['NaN', { a: [0, { b: Number.NaN }] }, '$.a[1].b'],
    ['Infinity', { a: [0, { b: Number.POSITIVE_INFINITY }] }, '$.a[1].b'],
    ['-Infinity', [Number.NEGATIVE_INFINITY], '$[0]'],
    ['a bigint', { n: 10n }, '$.n'],
    ['a function', { a: { f: () => 1 } }, '$.a.f'],
    ['a symbol', { s: Symbol('s') }, '$.s'],
    ['a cycle through an object', cyclic, '$.self'],
    ['a cycle through an array', cycleInArray, '$[0].back'],
    ['a Date instance', { when: new Date(0) }, '$.when'],
    ['a Map instance', { a: [new Map([['k', 1]])] }, '$.a[0]'],
    ['a class instance', { x: new (class Point {})() }, '$.x'],
    ['a top-level NaN', Number.NaN, '$'],
    ['a top-level undefined', undefined, '$'],
  ])('%s throws CanonicalJsonError naming `%s`', (_label, value, path) => {
    const error = thrown(() => canonicalJson(value));

    expect(error).toBeInstanceOf(CanonicalJsonError);
    expect((error as CanonicalJsonError).path).toBe(path);
    expect((error as CanonicalJsonError).code).toBe('non_json_value');
    expect((error as CanonicalJsonError).message).toContain(`\`${path}\``);
  });

  it('names the class of an instance it refuses', () => {
    const error = thrown(() => canonicalJson({ m: new Map() }));

    expect((error as CanonicalJsonError).message).toContain('`Map`');
  });

  it('accepts a value referenced twice without a cycle', () => {
    const shared = { v: 1 };

    expect(canonicalJson({ x: shared, y: [shared] })).toBe('{"x":{"v":1},"y":[{"v":1}]}');
  });
});

describe('canonicalJson — JavaScript edge values', () => {
  it('drops object members whose value is undefined', () => {
    expect(canonicalJson({ b: 1, a: undefined, c: { d: undefined } })).toBe('{"b":1,"c":{}}');
  });

  it('writes undefined array items as null, like JSON.stringify', () => {
    expect(canonicalJson([1, undefined, 2])).toBe('[1,null,2]');
  });

  it('writes -0 as 0', () => {
    expect(canonicalJson(-0)).toBe('0');
    expect(canonicalJson({ a: -0, b: [-0] })).toBe('{"a":0,"b":[0]}');
  });

  it('accepts objects with a null prototype and sorts their keys', () => {
    const bare = Object.create(null) as Record<string, unknown>;
    bare.b = 1;
    bare.a = { c: true };

    expect(canonicalJson(bare)).toBe('{"a":{"c":true},"b":1}');
  });

  it('sorts keys by UTF-16 code units at every depth', () => {
    expect(canonicalJson({ b: { z: 1, y: 2 }, a: [{ d: 1, c: 2 }], '\u00e9': 0, e: 0 })).toBe(
      '{"a":[{"c":2,"d":1}],"b":{"y":2,"z":1},"e":0,"\u00e9":0}',
    );
  });

  it('ignores symbol-keyed members', () => {
    expect(canonicalJson({ a: 1, [Symbol('hidden')]: 2 })).toBe('{"a":1}');
  });
});

describe('canonicalJson — against a reference serialiser on random JSON', () => {
  // Sorted members, ECMAScript strings and numbers: the whole of RFC 8785 for values JSON can hold.
  function reference(value: unknown): string {
    if (Array.isArray(value)) return `[${value.map(reference).join(',')}]`;
    if (value !== null && typeof value === 'object') {
      const keys = Object.keys(value).sort();
      return `{${keys.map((key) => `${JSON.stringify(key)}:${reference((value as Record<string, unknown>)[key])}`).join(',')}}`;
    }
    return JSON.stringify(value);
  }

  it('matches for any JSON value, whatever the member order, twice in a row (cached names)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        expect(canonicalJson(value)).toBe(reference(value));
        expect(canonicalJson(value)).toBe(reference(value));
      }),
      { numRuns: 1000 },
    );
  });

  it('keeps -0 as 0 and long member names exact', () => {
    const long = `k${'\u2028"'.repeat(80)}`;
    expect(canonicalJson({ [long]: -0, a: [1e21, 1.5e-7] })).toBe(`{"a":[1e+21,1.5e-7],${JSON.stringify(long)}:0}`);
  });
});

describe('canonicalJson on values it cannot walk', () => {
  const nested = (depth: number): unknown => {
    let value: unknown = [];
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { a: value } : [value];
    return value;
  };

  it('refuses nesting past MAX_JSON_DEPTH by name, and serialises up to it', () => {
    expect(() => canonicalJson(nested(100_000))).toThrow(CanonicalJsonError);
    expect(() => canonicalJson(nested(100_000))).toThrow(/nests deeper than 2000 levels/);
    expect(canonicalJson(nested(1_999))).toMatch(/^\{"a":\[/);
  });

  it('refuses a getter or Proxy trap that throws as non_json_value, with the cause', () => {
    const getter = {
      get x(): number {
        throw new Error('boom');
      },
    };
    const proxy = new Proxy(
      {},
      {
        ownKeys() {
          throw new Error('trap');
        },
      },
    );

    for (const value of [getter, proxy, [getter]]) {
      const error = (() => {
        try {
          canonicalJson(value);
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(CanonicalJsonError);
      expect((error as CanonicalJsonError).code).toBe('non_json_value');
      expect((error as Error).cause).toBeInstanceOf(Error);
    }
  });
});
