import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createFuseBox } from '../../src/fuses/fuse-box.js';
import { loopFuse } from '../../src/fuses/loop.js';
import type { ToolCall } from '../../src/fuses/tool-fuse.js';

/** A call from a small pool, so that blocks and prefixes collide often. */
const call: fc.Arbitrary<ToolCall> = fc.record({
  name: fc.constantFrom('a', 'b', 'c', 'd', 'e'),
  args: fc.record({ k: fc.integer({ min: 0, max: 2 }) }),
});

function verdictsOf(calls: readonly ToolCall[], maxCycleLength: number, window?: number) {
  const loop = loopFuse({ repeatThreshold: 3, maxCycleLength, ...(window === undefined ? {} : { window }) });
  const run = createFuseBox({ loop, keepLog: false }).forRun('run-1');
  return calls.map((c) => run.checkToolCall(c).allowed);
}

describe('loopFuse (property)', () => {
  it('refuses any period-p block repeated twice, 2 ≤ p ≤ maxCycleLength, by the end of the second period', () => {
    const scenario = fc.integer({ min: 2, max: 6 }).chain((maxCycleLength) =>
      fc.record({
        maxCycleLength: fc.constant(maxCycleLength),
        prefix: fc.array(call, { maxLength: 12 }),
        block: fc.integer({ min: 2, max: maxCycleLength }).chain((p) => fc.array(call, { minLength: p, maxLength: p })),
      }),
    );

    fc.assert(
      fc.property(scenario, ({ maxCycleLength, prefix, block }) => {
        const allowed = verdictsOf([...prefix, ...block, ...block], maxCycleLength);

        expect(allowed.includes(false)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('refuses the closing call itself when nothing before it was refused', () => {
    const scenario = fc
      .integer({ min: 2, max: 5 })
      .chain((p) => fc.uniqueArray(call, { minLength: p, maxLength: p, selector: (c) => JSON.stringify(c) }));

    fc.assert(
      fc.property(scenario, (block) => {
        const allowed = verdictsOf([...block, ...block], 5);

        expect(allowed).toEqual([...block.map(() => true), ...block.slice(1).map(() => true), false]);
      }),
      { numRuns: 300 },
    );
  });

  it('never refuses a sequence without repetition, whatever the window', () => {
    const distinct = fc.uniqueArray(
      fc.record({
        name: fc.constantFrom('a', 'b', 'c'),
        args: fc.record({ k: fc.integer(), s: fc.string({ maxLength: 3 }) }),
      }),
      { maxLength: 150, selector: (c) => JSON.stringify([c.name, c.args.k, c.args.s]) },
    );

    fc.assert(
      fc.property(distinct, fc.constantFrom(8, 64, 500), (calls, window) => {
        expect(verdictsOf(calls, 4, window).every(Boolean)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
