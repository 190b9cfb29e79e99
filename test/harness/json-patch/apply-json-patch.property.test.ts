import fc from 'fast-check';
import jsonPatch from 'fast-json-patch';
import { describe, expect, it } from 'vitest';
import { applyJsonPatch, JsonPatchError } from '../../../src/harness/json-patch/index.js';
import { measureJson } from '../../../src/harness/json-patch/json-size.js';
import { canonicalJson } from '../../../src/index.js';
import { anything, documentAndPatch, jsonDocument, messyPatch } from './arbitraries.js';
import { deepFreeze } from './helpers.js';

const RUNS = { numRuns: 1_000 };

/** Apply, returning the result or the error (a non-JsonPatchError fails the property). */
function attempt(
  document: unknown,
  patch: unknown,
): { ok: true; value: unknown } | { ok: false; error: JsonPatchError } {
  try {
    return { ok: true, value: applyJsonPatch(document, patch) };
  } catch (error) {
    if (error instanceof JsonPatchError) return { ok: false, error };
    throw error;
  }
}

/** Own keys and property descriptors of the built-in prototypes, to compare before and after. */
function prototypeSnapshot(): string {
  return [Object.prototype, Array.prototype, Function.prototype]
    .map((proto) =>
      Reflect.ownKeys(proto)
        .map((name) => {
          const descriptor = Object.getOwnPropertyDescriptor(proto, name);
          return `${String(name)}:${typeof descriptor?.value}:${typeof descriptor?.get}`;
        })
        .join(','),
    )
    .join('|');
}

describe('applyJsonPatch (property)', () => {
  it('never writes its inputs (deep-frozen document and patch, compared with a snapshot)', () => {
    fc.assert(
      fc.property(documentAndPatch, ([document, patch]) => {
        const before = canonicalJson({ document, patch });
        deepFreeze(document);
        deepFreeze(patch);

        attempt(document, patch);

        expect(canonicalJson({ document, patch })).toBe(before);
      }),
      RUNS,
    );
  });

  it('returns an equal document for an empty patch', () => {
    fc.assert(
      fc.property(jsonDocument, (document) => {
        expect(canonicalJson(applyJsonPatch(document, []))).toBe(canonicalJson(document));
      }),
      RUNS,
    );
  });

  it('fails only with JsonPatchError, whatever the document and patch', () => {
    fc.assert(
      fc.property(
        fc.oneof({ weight: 4, arbitrary: jsonDocument }, { weight: 1, arbitrary: anything }),
        messyPatch,
        (document, patch) => {
          const outcome = attempt(document, patch);

          if (!outcome.ok) {
            expect(outcome.error.operationIndex === null || Number.isInteger(outcome.error.operationIndex)).toBe(true);
            expect(outcome.error.reason).not.toBe('');
          }
        },
      ),
      RUNS,
    );
  });

  it('returns JSON within the default limits whenever it succeeds', () => {
    fc.assert(
      fc.property(documentAndPatch, ([document, patch]) => {
        const outcome = attempt(document, patch);

        if (outcome.ok) expect(() => canonicalJson(outcome.value)).not.toThrow();
      }),
      RUNS,
    );
  });

  it('never changes a prototype, with patches full of `__proto__`, `constructor` and `prototype`', () => {
    const before = prototypeSnapshot();
    fc.assert(
      fc.property(documentAndPatch, ([document, patch]) => {
        const outcome = attempt(document, patch);

        expect(prototypeSnapshot()).toBe(before);
        expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
        if (outcome.ok && typeof outcome.value === 'object' && outcome.value !== null) {
          const proto: unknown = Object.getPrototypeOf(outcome.value);
          expect([Object.prototype, Array.prototype, null]).toContain(proto);
        }
      }),
      RUNS,
    );
  });

  it('agrees with fast-json-patch whenever both accept the patch', () => {
    fc.assert(
      fc.property(documentAndPatch, ([document, patch]) => {
        const ours = attempt(document, patch);
        let theirs: unknown;
        try {
          theirs = jsonPatch.applyPatch(document, structuredClone(patch) as never, true, false).newDocument;
        } catch {
          return;
        }

        if (ours.ok) expect(canonicalJson(ours.value)).toBe(canonicalJson(theirs));
      }),
      RUNS,
    );
  });

  it('gives the same result in one call as one operation per call (in-place writes stay private)', () => {
    fc.assert(
      fc.property(documentAndPatch, ([document, patch]) => {
        const whole = attempt(document, patch);
        let stepwise: ReturnType<typeof attempt> = { ok: true, value: document };
        for (const step of patch) {
          if (!stepwise.ok) break;
          stepwise = attempt(stepwise.value, [step]);
        }

        expect(stepwise.ok).toBe(whole.ok);
        if (whole.ok && stepwise.ok) expect(canonicalJson(whole.value)).toBe(canonicalJson(stepwise.value));
      }),
      RUNS,
    );
  });

  it('counts exactly the bytes of canonical UTF-8 JSON', () => {
    fc.assert(
      fc.property(jsonDocument, (value) => {
        expect(measureJson(value, Number.POSITIVE_INFINITY, 2_000).bytes).toBe(
          Buffer.byteLength(canonicalJson(value), 'utf8'),
        );
      }),
      RUNS,
    );
  });
});
