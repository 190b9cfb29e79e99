import { describe, expect, it } from 'vitest';
import { createManualClock, LedgerFencedError, renewLease, sideEffect } from '../../src/index.js';
import { collectingLogger, deferred, newLedger, onlyRecord, rejectionOf, until } from './ledger-helpers.js';

const LEASE = 1_000;

/**
 * A safe tool over a manual clock whose lease is never renewed on its own (the renewal interval
 * is longer than the lease), so advancing the clock past the lease abandons a stalled owner.
 * Owner A (the first run) stalls until `wakeA`; then it does `afterWake`.
 */
function stalledOwner(afterWake: (run: number) => Promise<unknown> | unknown = (run) => `owner ${run}`) {
  const clock = createManualClock(100_000);
  const logger = collectingLogger();
  const ledger = newLedger({ clock, logger, leaseTtlMs: LEASE, leaseRenewIntervalMs: 10 * LEASE });
  const wakeA = deferred();
  const state = { runs: 0, effects: 0 };
  const sync = ledger.tool(
    { name: 'sync_inventory', sideEffectClass: 'idempotent_mutate' },
    async (_args: { sku: string }) => {
      const run = ++state.runs;
      if (run === 1) await wakeA.promise;
      return run === 1 ? afterWake(run) : `owner ${run}`;
    },
  );
  const call = () => sync({ sku: 'sku_1' }, { toolCallId: 'call_1' });
  return { clock, logger, ledger, wakeA, state, call };
}

async function takeover(setup: ReturnType<typeof stalledOwner>) {
  const a = setup.call();
  await until(() => setup.state.runs === 1, 'owner A to start');
  const aRecord = await onlyRecord(setup.ledger);
  setup.clock.advance(LEASE);
  const bResult = await setup.call();
  const bRecord = await onlyRecord(setup.ledger);
  return { a, aRecord, bResult, bRecord };
}

describe('fencing a stale owner', () => {
  it('B reclaims the expired claim, completes, and the fence increments', async () => {
    const setup = stalledOwner();

    const { a, aRecord, bResult, bRecord } = await takeover(setup);
    setup.wakeA.resolve();
    await Promise.allSettled([a]);

    expect(aRecord).toMatchObject({ outcome: 'IN_FLIGHT', fence: 1 });
    expect(bResult).toBe('owner 2');
    expect(bRecord).toMatchObject({ outcome: 'COMPLETED', fence: 2, attempts: 2, result: 'owner 2' });
    expect(bRecord.owner).toBeNull();
  });

  it('A cannot complete after the takeover: LedgerFencedError, and B’s result stands', async () => {
    const setup = stalledOwner();
    const { a, bRecord } = await takeover(setup);

    setup.wakeA.resolve();
    const error = await rejectionOf(a);

    expect(error).toBeInstanceOf(LedgerFencedError);
    expect((error as LedgerFencedError).fence).toBe(1);
    expect((error as LedgerFencedError).record?.fence).toBe(2);
    expect(await onlyRecord(setup.ledger)).toEqual(bRecord);
    await expect(setup.call()).resolves.toBe('owner 2');
    expect(setup.state.runs).toBe(2);
  });

  it('A cannot complete while B is still running either', async () => {
    const clock = createManualClock(100_000);
    const ledger = newLedger({ clock, leaseTtlMs: LEASE, leaseRenewIntervalMs: 10 * LEASE });
    const gates = [deferred(), deferred()];
    let runs = 0;
    const sync = ledger.tool({ name: 'sync_inventory', sideEffectClass: 'idempotent_mutate' }, async () => {
      const run = ++runs;
      await gates[run - 1]?.promise;
      return `owner ${run}`;
    });
    const a = sync({}, { toolCallId: 'c' });
    await until(() => runs === 1);
    clock.advance(LEASE);
    const b = sync({}, { toolCallId: 'c' });
    await until(() => runs === 2);

    gates[0]?.resolve();
    const aError = await rejectionOf(a);
    gates[1]?.resolve();

    expect(aError).toBeInstanceOf(LedgerFencedError);
    await expect(b).resolves.toBe('owner 2');
    expect(await onlyRecord(ledger)).toMatchObject({ outcome: 'COMPLETED', result: 'owner 2', fence: 2 });
  });

  it('A cannot record its failure: its own error still wins and the record stays B’s', async () => {
    const failure = new Error('A failed late');
    const setup = stalledOwner(() => {
      throw failure;
    });
    const { a, bRecord } = await takeover(setup);

    setup.wakeA.resolve();
    const error = await rejectionOf(a);

    expect(error).toBe(failure);
    expect(await onlyRecord(setup.ledger)).toEqual(bRecord);
    expect(setup.logger.entries.some((entry) => entry.level === 'error')).toBe(true);
  });

  it('A cannot renew: renewLease() inside A’s body rejects with LedgerFencedError', async () => {
    let renewal: unknown;
    const setup = stalledOwner(async () => {
      renewal = await renewLease().then(
        () => 'renewed',
        (error: unknown) => error,
      );
      return 'A result';
    });
    const { a, bRecord } = await takeover(setup);

    setup.wakeA.resolve();
    await expect(a).rejects.toBeInstanceOf(LedgerFencedError);

    expect(renewal).toBeInstanceOf(LedgerFencedError);
    expect(await onlyRecord(setup.ledger)).toEqual(bRecord);
  });

  it('A cannot cross its boundary: sideEffect after the takeover never runs the external call', async () => {
    let aEffects = 0;
    const setup = stalledOwner(() =>
      sideEffect(() => {
        aEffects++;
        return 'A charged';
      }),
    );
    const { a, bRecord } = await takeover(setup);

    setup.wakeA.resolve();

    await expect(a).rejects.toBeInstanceOf(LedgerFencedError);
    expect(aEffects).toBe(0);
    expect(await onlyRecord(setup.ledger)).toEqual(bRecord);
  });

  it('every takeover increments the fence; only the last owner’s write lands', async () => {
    const clock = createManualClock(100_000);
    const ledger = newLedger({ clock, leaseTtlMs: LEASE, leaseRenewIntervalMs: 10 * LEASE });
    const stalls = [deferred(), deferred()];
    let runs = 0;
    const sync = ledger.tool({ name: 'sync_inventory', sideEffectClass: 'idempotent_mutate' }, async () => {
      const run = ++runs;
      await stalls[run - 1]?.promise;
      return `owner ${run}`;
    });
    const fences: number[] = [];
    const stalled: Promise<unknown>[] = [];
    for (let owner = 1; owner <= 2; owner++) {
      stalled.push(sync({}, { toolCallId: 'c' }));
      await until(() => runs === owner);
      fences.push((await onlyRecord(ledger)).fence);
      clock.advance(LEASE);
    }

    const last = await sync({}, { toolCallId: 'c' });
    for (const stall of stalls) stall.resolve();
    const outcomes = await Promise.allSettled(stalled);

    expect(fences).toEqual([1, 2]);
    expect(last).toBe('owner 3');
    expect(outcomes.map((o) => (o.status === 'rejected' ? (o.reason as Error).name : o.status))).toEqual([
      'LedgerFencedError',
      'LedgerFencedError',
    ]);
    expect(await onlyRecord(ledger)).toMatchObject({ fence: 3, outcome: 'COMPLETED', result: 'owner 3' });
  });
});
