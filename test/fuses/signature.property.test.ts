import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/core/canonical-json.js';
import { createFuseBox } from '../../src/fuses/fuse-box.js';
import { loopFuse } from '../../src/fuses/loop.js';
import { toolCallSignature } from '../../src/fuses/tool-fuse.js';

function withoutNegativeZero(value: unknown): unknown {
  if (typeof value === 'number') return Object.is(value, -0) ? 0 : value;
  if (Array.isArray(value)) return value.map(withoutNegativeZero);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutNegativeZero(v)]));
  }
  return value;
}

/** The same value with every object's members inserted in another (seeded) order. */
function reorderKeys(value: unknown, seed: number): unknown {
  if (Array.isArray(value)) return value.map((item, index) => reorderKeys(item, seed + index + 1));
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value);
    let state = seed >>> 0;
    for (let i = entries.length - 1; i > 0; i--) {
      state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
      const j = state % (i + 1);
      [entries[i], entries[j]] = [entries[j] as [string, unknown], entries[i] as [string, unknown]];
    }
    return Object.fromEntries(entries.map(([k, v], index) => [k, reorderKeys(v, seed * 31 + index)]));
  }
  return value;
}

const args = fc.jsonValue().map(withoutNegativeZero);
const name = fc.string({ minLength: 1, maxLength: 12 });

describe('toolCallSignature (property)', () => {
  it('is stable under key reordering and ignores the call id', () => {
    fc.assert(
      fc.property(name, args, fc.nat(), fc.option(fc.string()), fc.option(fc.string()), (tool, a, seed, id1, id2) => {
        const first = toolCallSignature({ ...(id1 === null ? {} : { id: id1 }), name: tool, args: a });
        const second = toolCallSignature({
          ...(id2 === null ? {} : { id: id2 }),
          name: tool,
          args: reorderKeys(a, seed),
        });

        expect(second).toBe(first);
      }),
      { numRuns: 500 },
    );
  });

  it('is equal exactly when the tool and the canonical arguments are equal', () => {
    fc.assert(
      fc.property(name, args, fc.boolean(), name, args, (t1, a1, sameTool, other, a2) => {
        const t2 = sameTool ? t1 : other;
        const same = t1 === t2 && canonicalJson(a1) === canonicalJson(a2);

        expect(toolCallSignature({ name: t1, args: a1 }) === toolCallSignature({ name: t2, args: a2 })).toBe(same);
      }),
      { numRuns: 500 },
    );
  });

  it('makes the loop fuse count reordered calls with fresh ids as one call', () => {
    fc.assert(
      fc.property(name, args, fc.nat(), (tool, a, seed) => {
        const run = createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }).forRun('run-1');

        const verdicts = [0, 1, 2].map(
          (i) => run.checkToolCall({ id: `call_${seed}_${i}`, name: tool, args: reorderKeys(a, seed + i) }).allowed,
        );

        expect(verdicts).toEqual([true, true, false]);
      }),
      { numRuns: 300 },
    );
  });
});
