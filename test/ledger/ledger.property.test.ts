/**
 * Model-based property test of one transition: random sequences of calls (whose bodies succeed,
 * fail at each point of the boundary, or stall), clock jumps past the lease, reconciler verdicts,
 * operator releases and stalled workers waking up. A fake provider records which effects really
 * happened; the invariants are checked after every step.
 */
import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  type Boundary,
  CLASS_DEFAULTS,
  createLedger,
  createManualClock,
  createMemoryStorage,
  hasWorkerDeathEvidence,
  isExpired,
  LedgerAlreadyResolvedError,
  LedgerFencedError,
  LedgerHardBlockError,
  LedgerReleaseRefusedError,
  LedgerWorkerAliveError,
  type ReconcileVerdict,
  recordExternalOperation,
  type SideEffectClass,
  sideEffect,
  type TransitionRecord,
} from '../../src/index.js';
import { requiresDeathSignal } from '../../src/ledger/worker-death.js';

type Plan =
  | 'succeed'
  | 'throwBefore'
  | 'throwInsideNoEffect'
  | 'throwInside'
  | 'throwAfter'
  | 'stallBefore'
  | 'stallInside';
type Verdict = 'none' | 'COMPLETED' | 'NOT_EXECUTED' | 'UNKNOWN' | 'throws';
type Command =
  | { readonly kind: 'call'; readonly plan: Plan; readonly providerKey: 'k1' | 'k2' }
  | { readonly kind: 'advancePastLease' }
  | { readonly kind: 'verdict'; readonly verdict: Verdict }
  | { readonly kind: 'release'; readonly verified: 'not_executed' | 'completed' }
  | { readonly kind: 'wake'; readonly afterWake: 'return' | 'throw' };

const LEASE = 1_000;
const BODY_ERRORS = new Set(['before', 'inside, no effect', 'inside, after the effect', 'after']);
const RANK: Readonly<Record<Boundary, number>> = { not_crossed: 0, maybe_crossed: 1, crossed: 2 };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('call' as const),
      plan: fc.constantFrom<Plan>(
        'succeed',
        'throwBefore',
        'throwInsideNoEffect',
        'throwInside',
        'throwAfter',
        'stallBefore',
        'stallInside',
      ),
      providerKey: fc.constantFrom('k1' as const, 'k2' as const),
    }),
  },
  { weight: 2, arbitrary: fc.constant({ kind: 'advancePastLease' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('verdict' as const),
      verdict: fc.constantFrom<Verdict>('none', 'COMPLETED', 'NOT_EXECUTED', 'UNKNOWN', 'throws'),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('release' as const),
      verified: fc.constantFrom('not_executed' as const, 'completed' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('wake' as const),
      afterWake: fc.constantFrom('return' as const, 'throw' as const),
    }),
  },
);

interface Tracked {
  settled: boolean;
  value?: unknown;
  error?: unknown;
}

function track(promise: Promise<unknown>): Tracked {
  const state: Tracked = { settled: false };
  promise.then(
    (value) => Object.assign(state, { settled: true, value }),
    (error: unknown) => Object.assign(state, { settled: true, error }),
  );
  return state;
}

/** All storage calls are promise-based and the clock is manual: one macrotask turn reaches quiescence. */
const flush = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

async function runScenario(sideEffectClass: SideEffectClass, commands: readonly Command[]): Promise<void> {
  const clock = createManualClock(1_000_000);
  const storage = createMemoryStorage();
  const { spendability } = CLASS_DEFAULTS[sideEffectClass];
  const spendsOnce = spendability === 'single_use' || spendability === 'non_replayable';
  const trace: string[] = [`class ${sideEffectClass}`];
  const fail = (message: string): never => {
    throw new Error(`${message}\n  trace:\n    ${trace.join('\n    ')}`);
  };

  // The fake provider: which effects really happened, and which NOT_EXECUTED proofs came since.
  // Violations are collected, not thrown, so the body under test behaves as the command says.
  const provider = { effects: 0, proofsSinceLastEffect: 0, violation: null as string | null };
  const effect = (): void => {
    if (spendsOnce && provider.effects > 0 && provider.proofsSinceLastEffect === 0) {
      provider.violation ??= `a ${spendability} effect happened twice without a NOT_EXECUTED proof in between`;
    }
    provider.effects++;
    provider.proofsSinceLastEffect = 0;
  };

  let verdict: Verdict = 'none';
  let reconciledNotExecuted = false;
  const ledger = createLedger({
    storage,
    clock,
    agentId: 'agent',
    policyVersion: 'p1',
    leaseTtlMs: LEASE,
    // No renewal: the model moves the clock past leases on purpose.
    leaseRenewIntervalMs: 0,
    pollIntervalMs: 50,
    pollMaxIntervalMs: 200,
    reconciler: (): ReconcileVerdict => {
      trace.push(`  reconciler → ${verdict}`);
      switch (verdict) {
        case 'COMPLETED':
          return { status: 'COMPLETED', result: { reconciled: true } };
        case 'NOT_EXECUTED':
          provider.proofsSinceLastEffect++;
          reconciledNotExecuted = true;
          return { status: 'NOT_EXECUTED' };
        case 'throws':
          throw new Error('provider API down');
        default:
          return { status: 'UNKNOWN' };
      }
    },
  });

  // A stalled worker, once woken, either carries on or fails inside its external call (after the effect).
  const zombies: { run: number; wake: (next: 'return' | 'throw') => void; call?: Tracked }[] = [];
  const stall = (run: number): Promise<'return' | 'throw'> => new Promise((wake) => zombies.push({ run, wake }));
  let plan: Plan = 'succeed';
  let bodyRuns = 0;
  const tool = ledger.tool(
    {
      name: 'op',
      sideEffectClass,
      ...(sideEffectClass === 'keyed_mutate' ? { providerIdempotencyKeyParam: 'idempotencyKey' } : {}),
    },
    async (_args: { amount: number; idempotencyKey?: string }) => {
      const mine = plan;
      const run = ++bodyRuns;
      trace.push(`  body run ${run} (${mine})`);
      await recordExternalOperation(`op_${run}`);
      if (mine === 'throwBefore') throw new Error('before');
      const woke = mine === 'stallBefore' ? await stall(run) : 'return';
      const value = await sideEffect(async () => {
        if (mine === 'throwInsideNoEffect') throw new Error('inside, no effect');
        effect();
        trace.push(`  effect by run ${run}`);
        const next = mine === 'stallInside' ? await stall(run) : woke;
        if (mine === 'throwInside' || next === 'throw') throw new Error('inside, after the effect');
        return { run };
      });
      if (mine === 'throwAfter') throw new Error('after');
      return value;
    },
  );

  const read = async (): Promise<TransitionRecord | null> => (await ledger.list()).records[0] ?? null;
  // Held in an object: they are written by `observe` and read by the command loop.
  const seen: { previous: TransitionRecord | null; completed: { result: unknown } | null } = {
    previous: null,
    completed: null,
  };

  const observe = async (): Promise<void> => {
    if (provider.violation !== null) fail(provider.violation);
    const current = await read();
    const { previous, completed } = seen;
    if (current !== null && previous !== null) {
      if (RANK[current.boundary] < RANK[previous.boundary]) {
        const consumedRelease =
          current.operatorResolution?.consumedAt != null &&
          current.operatorResolution.consumedAt !== previous.operatorResolution?.consumedAt;
        const takeover = current.fence > previous.fence;
        const proven = reconciledNotExecuted || consumedRelease || sideEffectClass === 'read';
        if (!takeover || !proven)
          fail(`boundary moved back ${previous.boundary} → ${current.boundary} without a proven takeover`);
      }
      if (completed !== null && (current.outcome !== 'COMPLETED' || !isDeepEqual(current.result, completed.result))) {
        fail(`a COMPLETED record changed to ${current.outcome} ${JSON.stringify(current.result)}`);
      }
    }
    if (current?.outcome === 'COMPLETED' && completed === null) seen.completed = { result: current.result };
    seen.previous = current;
    reconciledNotExecuted = false;
  };

  const checkZombieOutcome = (state: Tracked): void => {
    if (!state.settled) fail('a woken worker did not settle');
    const error = state.error;
    if (error !== undefined && !(error instanceof LedgerFencedError) && !BODY_ERRORS.has((error as Error).message)) {
      fail(`a woken worker failed with an unexpected ${String(error)}`);
    }
  };

  for (const command of commands) {
    trace.push(JSON.stringify(command));
    switch (command.kind) {
      case 'call': {
        plan = command.plan;
        const runsBefore = bodyRuns;
        const zombiesBefore = zombies.length;
        const args =
          sideEffectClass === 'keyed_mutate' ? { amount: 1, idempotencyKey: command.providerKey } : { amount: 1 };
        const call = track(tool(args, { toolCallId: 'call_1' }));
        for (let step = 0; ; step++) {
          await flush();
          if (call.settled || zombies.length > zombiesBefore) break;
          if (step > 100) fail('a call neither settled nor stalled');
          clock.advance(100); // it is polling a held lease
        }
        const stalled = zombies.length > zombiesBefore ? zombies.at(-1) : undefined;
        if (stalled !== undefined) stalled.call = call;
        trace.push(
          `  → ${stalled ? 'stalled' : call.error === undefined ? `returned ${JSON.stringify(call.value)}` : `threw ${String(call.error)}`}`,
        );
        const { completed } = seen;
        if (completed !== null) {
          if (bodyRuns !== runsBefore) fail('the body ran again after COMPLETED');
          if (call.error !== undefined || !isDeepEqual(call.value, completed.result))
            fail('a call after COMPLETED did not return the stored result');
        }
        if (
          call.error !== undefined &&
          !(call.error instanceof LedgerHardBlockError) &&
          !BODY_ERRORS.has((call.error as Error).message)
        ) {
          fail(`a call failed with an unexpected ${String(call.error)}`);
        }
        break;
      }
      case 'advancePastLease':
        clock.advance(LEASE);
        break;
      case 'verdict':
        verdict = command.verdict;
        break;
      case 'release': {
        const before = await read();
        const pending =
          before?.operatorResolution?.verified === 'not_executed' && before.operatorResolution.consumedAt === null;
        // An expired claim of a consequential class is released only on evidence its owner is gone.
        const mayBeAlive =
          before !== null &&
          before.outcome === 'IN_FLIGHT' &&
          requiresDeathSignal('consequential', before.sideEffectClass) &&
          !hasWorkerDeathEvidence(before, clock.now(), 2 * LEASE);
        const expected =
          before?.outcome === 'COMPLETED'
            ? LedgerAlreadyResolvedError
            : before === null || (before.outcome === 'IN_FLIGHT' && !isExpired(before, clock.now()))
              ? LedgerReleaseRefusedError
              : mayBeAlive
                ? LedgerWorkerAliveError
                : pending
                  ? LedgerReleaseRefusedError
                  : null;
        const outcome = await ledger
          .release(before?.key ?? '0'.repeat(64), {
            verified: command.verified,
            ...(command.verified === 'completed' ? { result: { operator: true } } : {}),
            by: 'ops',
            reason: 'checked',
          })
          .then(
            () => null,
            (error: unknown) => error,
          );
        trace.push(`  → ${outcome === null ? 'accepted' : String(outcome)}`);
        if (expected === null && outcome !== null) fail(`release refused unexpectedly: ${String(outcome)}`);
        if (expected !== null && !(outcome instanceof expected))
          fail(`release should have been refused with ${expected.name}`);
        if (outcome === null && command.verified === 'not_executed') provider.proofsSinceLastEffect++;
        break;
      }
      case 'wake': {
        const zombie = zombies.shift();
        if (zombie === undefined) break;
        trace.push(`  waking run ${zombie.run} (${command.afterWake})`);
        zombie.wake(command.afterWake);
        await flush();
        if (zombie.call !== undefined) checkZombieOutcome(zombie.call);
        break;
      }
    }
    await observe();
  }

  // Finally every stalled worker wakes: none of them may double-spend or overwrite the outcome.
  for (const zombie of zombies.splice(0)) {
    trace.push(`final wake of run ${zombie.run}`);
    zombie.wake('return');
    await flush();
    if (zombie.call !== undefined) checkZombieOutcome(zombie.call);
    await observe();
  }
}

function isDeepEqual(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const callWith = (plan: Plan, providerKey: 'k1' | 'k2' = 'k1'): Command => ({ kind: 'call', plan, providerKey });
const releaseNotExecuted: Command = { kind: 'release', verified: 'not_executed' };

/** Shrunk counterexamples found by this property; always replayed before the random runs. */
const knownCounterexamples: [SideEffectClass, Command[]][] = [
  // A release issued after FAILED_BEFORE_EFFECT survives the same-key retry that did not need it,
  // and is then spent on that retry's own failure after the effect.
  ['keyed_mutate', [callWith('throwBefore'), releaseNotExecuted, callWith('throwAfter'), callWith('succeed')]],
  // A release issued for an abandoned (expired) attempt survives that worker waking and executing.
  [
    'non_idempotent_mutate',
    [
      callWith('stallBefore'),
      { kind: 'advancePastLease' },
      releaseNotExecuted,
      { kind: 'wake', afterWake: 'throw' },
      callWith('succeed'),
    ],
  ],
  [
    'irreversible',
    [
      callWith('stallBefore'),
      callWith('succeed'),
      releaseNotExecuted,
      { kind: 'wake', afterWake: 'throw' },
      callWith('succeed'),
    ],
  ],
];

describe('ledger — model-based property over one transition', () => {
  it('never double-spends, never moves the boundary back unproven, and never reruns after COMPLETED', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<SideEffectClass>(
          'read',
          'idempotent_mutate',
          'keyed_mutate',
          'non_idempotent_mutate',
          'irreversible',
        ),
        fc.array(commandArb, { minLength: 1, maxLength: 14 }),
        async (sideEffectClass, commands) => {
          await runScenario(sideEffectClass, commands);
        },
      ),
      { numRuns: 100, examples: knownCounterexamples },
    );
  });
});
