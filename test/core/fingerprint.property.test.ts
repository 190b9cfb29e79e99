import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprint, sha256Hex } from '../../src/index.js';

/** -0 has no canonical JSON form of its own (it is written `0`), so compare against 0. */
function withoutNegativeZero(value: unknown): unknown {
  if (typeof value === 'number') return Object.is(value, -0) ? 0 : value;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutNegativeZero(v)]));
  }
  return value;
}

/** A deterministic permutation from a seed (a small LCG), so fast-check can shrink the seed. */
function permute<T>(items: readonly T[], seed: number): T[] {
  const out = [...items];
  let state = seed >>> 0;
  for (let i = out.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    const j = state % (i + 1);
    const a = out[i] as T;
    out[i] = out[j] as T;
    out[j] = a;
  }
  return out;
}

/** The same value with the members of every object inserted in another order. */
function reorderKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, index) => reorderKeys(item, seed + index + 1));
  if (value !== null && typeof value === 'object') {
    const entries = permute(Object.entries(value), seed);
    // Object.fromEntries defines own data properties, so a `__proto__` key stays a plain member.
    return Object.fromEntries(entries.map(([k, v], index) => [k, reorderKeys(v, seed * 31 + index)]));
  }
  return value;
}

const json = fc.jsonValue().map(withoutNegativeZero);
const jsonObject = fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 8 }).map(withoutNegativeZero);

describe('fingerprint', () => {
  it('is stable under deep key reordering', () => {
    fc.assert(
      fc.property(jsonObject, fc.integer(), (value, seed) => {
        const reordered = reorderKeys(value, seed);

        expect(fingerprint(reordered)).toBe(fingerprint(value));
        expect(canonicalJson(reordered)).toBe(canonicalJson(value));
      }),
      { numRuns: 300 },
    );
  });

  it('is the SHA-256 hex of the canonical JSON', () => {
    fc.assert(
      fc.property(json, (value) => {
        const digest = fingerprint(value);

        expect(digest).toMatch(/^[0-9a-f]{64}$/);
        expect(digest).toBe(sha256Hex(canonicalJson(value)));
      }),
    );
  });

  it('differs for values whose canonical forms differ', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(json, { selector: (v) => canonicalJson(v), minLength: 2, maxLength: 20 }),
        (values) => {
          const digests = new Set(values.map((v) => fingerprint(v)));

          expect(digests.size).toBe(values.length);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('differs between a pair of values that are not deep-equal', () => {
    fc.assert(
      fc.property(json, json, (a, b) => {
        fc.pre(canonicalJson(a) !== canonicalJson(b));

        expect(fingerprint(a)).not.toBe(fingerprint(b));
      }),
    );
  });
});

describe('canonicalJson round trip', () => {
  it('parses back to a deep-equal value', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(value);
      }),
      { numRuns: 300 },
    );
  });

  it('is a fixed point: canonicalising canonical output changes nothing', () => {
    fc.assert(
      fc.property(json, (value) => {
        const once = canonicalJson(value);

        expect(canonicalJson(JSON.parse(once))).toBe(once);
      }),
    );
  });

  it('agrees with JSON.stringify on everything but member order', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(JSON.parse(canonicalJson(value))).toEqual(JSON.parse(JSON.stringify(value)));
      }),
    );
  });
});
