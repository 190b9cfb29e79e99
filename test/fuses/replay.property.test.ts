import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/clock.js';
import { budgetFuse } from '../../src/fuses/budget.js';
import { createFuseBox } from '../../src/fuses/fuse-box.js';
import { loopFuse } from '../../src/fuses/loop.js';
import { permissionFuse } from '../../src/fuses/permission.js';
import type { FuseRun } from '../../src/fuses/run-box.js';
import { charCounter, REFUND_TOOLS } from './helpers.js';

const tool = fc.constantFrom('lookup_order', 'search_docs', 'poll_status', 'issue_refund', 'unknown_tool');
const args = fc.oneof(fc.constant({}), fc.record({ id: fc.integer({ min: 0, max: 2 }) }), fc.constant({ x: [1, 2] }));
const callId = fc.option(fc.constantFrom('c1', 'c2'), { nil: null });
const usage = fc.oneof(
  fc.constant(undefined),
  fc.record({ prompt_tokens: fc.integer({ min: -2, max: 500 }), completion_tokens: fc.integer({ min: 0, max: 500 }) }),
  fc.record({ input_tokens: fc.integer({ min: 0, max: 500 }), output_tokens: fc.integer({ min: 0, max: 500 }) }),
  fc.record({ inputTokens: fc.double({ noDefaultInfinity: false }), outputTokens: fc.integer({ min: 0, max: 50 }) }),
);

type Op = (run: FuseRun, reservations: string[]) => void;

const op: fc.Arbitrary<[number, Op]> = fc.tuple(
  fc.integer({ min: 0, max: 1 }),
  fc.oneof(
    fc.tuple(tool, args, callId).map(
      ([name, a, id]): Op =>
        (run) =>
          void run.checkToolCall(id === null ? { name, args: a } : { id, name, args: a }),
    ),
    fc.tuple(tool, args, fc.integer({ min: 0, max: 2 }), fc.boolean()).map(
      ([name, a, result, ok]): Op =>
        (run) =>
          void run.recordToolResult({ name, args: a, result }, { ok }),
    ),
    fc.option(fc.constantFrom('turn-1', 'turn-2'), { nil: undefined }).map(
      (turnId): Op =>
        (run) =>
          void run.beginTurn(turnId),
    ),
    fc.tuple(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 2_000 })).map(
      ([chars, maxOutputTokens]): Op =>
        (run, reservations) => {
          const messages = [{ role: 'user', content: 'x'.repeat(chars) }];
          const { reservation } = run.checkModelCall({ model: 'm', messages, maxOutputTokens });
          if (reservation !== null) reservations.push(reservation.id);
        },
    ),
    usage.map(
      (u): Op =>
        (run, reservations) =>
          void run.recordModelUsage(u, { reservation: reservations.shift() ?? null }),
    ),
    fc.constant<Op>((run, reservations) => void run.release(reservations.pop() ?? 'res-0')),
    fc.constant<Op>((run) => run.reset()),
    fc.constant<Op>((run) => run.end()),
  ),
);

describe('replay (property)', () => {
  it('reproduces any recorded log exactly, twice', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const options = {
          permission: permissionFuse({ granted: ['read'], tools: REFUND_TOOLS }),
          loop: loopFuse({ repeatThreshold: 3, maxCycleLength: 3, window: 8 }),
          budget: budgetFuse({
            maxUsd: 0.02,
            maxTokens: 3_000,
            price: { inputPer1k: 0.005, outputPer1k: 0.01 },
            tokenCounter: charCounter,
          }),
          clock: createManualClock(0),
        };
        const box = createFuseBox(options);
        const reservations: [string[], string[]] = [[], []];
        for (const [runIndex, apply] of ops) apply(box.forRun(`run-${runIndex}`), reservations[runIndex] ?? []);

        const stored = JSON.parse(JSON.stringify(box.log));
        const first = box.replay(stored);
        const second = createFuseBox(options).replay(stored);

        expect(first).toEqual(box.log);
        expect(second).toEqual(first);
      }),
      { numRuns: 200 },
    );
  });
});
