/**
 * The worker-death evidence gate on one process (memory store, manual clock): an expired claim is
 * taken over or released only on evidence that its owner is gone (a recorded death signal, or a
 * heartbeat older than `presumedDeadAfterMs`); `markWorkerDead` refuses a fresh heartbeat unless
 * told to override it. The cross-process twin is worker-death-backends.int.test.ts.
 */
import { describe, expect, it } from 'vitest';
import {
  createManualClock,
  LedgerFencedError,
  type LedgerOptions,
  LedgerWorkerAliveError,
  type ManualClock,
  type SideEffectClass,
} from '../../src/index.js';
import { deferred, newLedger, onlyRecord, rejectionOf, tick, track, until } from './ledger-helpers.js';

const LEASE_MS = 1_000;
const AUDIT = { by: 'ops@example.com', reason: 'pod evicted' };

/** A tool whose first run hangs (no lease renewal), so its claim expires while its owner lives. */
function stalledTool(sideEffectClass: SideEffectClass, options: Partial<LedgerOptions> = {}) {
  const clock = createManualClock(10_000);
  const ledger = newLedger({ clock, leaseTtlMs: LEASE_MS, leaseRenewIntervalMs: 0, pollIntervalMs: 50, ...options });
  const hold = deferred();
  const state = { runs: 0 };
  const sync = ledger.tool(
    { name: 'sync', sideEffectClass, retryPermission: 'safe_retry', spendability: 'multi_use' },
    async () => {
      state.runs++;
      if (state.runs === 1) await hold.promise;
      return `run ${state.runs}`;
    },
  );
  return { clock, ledger, hold, state, sync };
}

/** Advance the manual clock in steps until `promise` settles. */
async function advanceUntilSettled(clock: ManualClock, promise: Promise<unknown>, stepMs = 100): Promise<void> {
  const tracked = track(promise);
  for (let i = 0; i < 1_000 && !tracked.settled; i++) {
    clock.advance(stepMs);
    await tick();
  }
  if (!tracked.settled) throw new Error('The call never settled');
}

describe('reclaim of an expired claim', () => {
  it('with `reclaimRequiresDeathSignal: true`, waits while the heartbeat is fresh and raises LedgerWorkerAliveError', async () => {
    const { clock, hold, state, sync } = stalledTool('idempotent_mutate', {
      reclaimRequiresDeathSignal: true,
      presumedDeadAfterMs: 60_000,
      pollTimeoutMs: LEASE_MS,
    });
    const first = sync({}, { toolCallId: 'c' });
    await until(() => state.runs === 1);
    clock.advance(LEASE_MS);

    const second = sync({}, { toolCallId: 'c' });
    await advanceUntilSettled(clock, second);
    const error = await rejectionOf(second);
    hold.resolve();

    expect(error).toBeInstanceOf(LedgerWorkerAliveError);
    expect(error).toMatchObject({ code: 'ledger_worker_alive', presumedDeadAfterMs: 60_000 });
    expect(state.runs).toBe(1);
    expect(await first).toBe('run 1');
  });

  it('with `false`, lease expiry alone counts as death: the claim is taken over at once', async () => {
    const { clock, hold, state, sync } = stalledTool('idempotent_mutate', { reclaimRequiresDeathSignal: false });
    const first = sync({}, { toolCallId: 'c' });
    await until(() => state.runs === 1);
    clock.advance(LEASE_MS);

    const second = await sync({}, { toolCallId: 'c' });
    hold.resolve();

    expect(second).toBe('run 2');
    await expect(first).rejects.toBeInstanceOf(LedgerFencedError);
  });

  it('by default, a consequential class waits for evidence and an idempotent one does not', async () => {
    const keyed = stalledTool('keyed_mutate', { presumedDeadAfterMs: 60_000, pollTimeoutMs: LEASE_MS });
    const idempotent = stalledTool('idempotent_mutate');
    for (const setup of [keyed, idempotent]) {
      void setup.sync({}, { toolCallId: 'c' }).catch(() => undefined);
      await until(() => setup.state.runs === 1);
      setup.clock.advance(LEASE_MS);
    }

    const waiting = keyed.sync({}, { toolCallId: 'c' });
    await advanceUntilSettled(keyed.clock, waiting);
    const reclaimed = await idempotent.sync({}, { toolCallId: 'c' });
    keyed.hold.resolve();
    idempotent.hold.resolve();

    await expect(waiting).rejects.toBeInstanceOf(LedgerWorkerAliveError);
    expect(keyed.state.runs).toBe(1);
    expect(reclaimed).toBe('run 2');
  });

  it('without a `pollTimeoutMs`, a redispatch waits until the owner is presumed dead, however long that is set to be', async () => {
    const { clock, hold, state, sync } = stalledTool('keyed_mutate', { presumedDeadAfterMs: 5 * LEASE_MS });
    const first = sync({}, { toolCallId: 'c' });
    await until(() => state.runs === 1);
    clock.advance(LEASE_MS);

    const second = sync({}, { toolCallId: 'c' });
    await advanceUntilSettled(clock, second, 50);
    hold.resolve();

    expect(await second).toBe('run 2');
    expect(clock.now()).toBeGreaterThanOrEqual(10_000 + 5 * LEASE_MS);
    await expect(first).rejects.toBeInstanceOf(LedgerFencedError);
  });

  it('takes the claim over once the heartbeat is older than `presumedDeadAfterMs` (default twice the lease)', async () => {
    const { clock, ledger, hold, state, sync } = stalledTool('idempotent_mutate', { reclaimRequiresDeathSignal: true });
    const first = sync({}, { toolCallId: 'c' });
    await until(() => state.runs === 1);
    clock.advance(LEASE_MS);

    const second = sync({}, { toolCallId: 'c' });
    await tick();
    expect(state.runs).toBe(1);
    await advanceUntilSettled(clock, second);
    hold.resolve();

    expect(await second).toBe('run 2');
    await expect(first).rejects.toBeInstanceOf(LedgerFencedError);
    const record = await onlyRecord(ledger);
    expect(record.lastHeartbeatAt).toBeGreaterThanOrEqual(10_000 + 2 * LEASE_MS);
  });
});

describe('markWorkerDead', () => {
  it('refuses a fresh heartbeat, then records who, why and when with `overrideHeartbeat` so a waiting peer takes over', async () => {
    const { clock, ledger, hold, state, sync } = stalledTool('idempotent_mutate', {
      reclaimRequiresDeathSignal: true,
      presumedDeadAfterMs: 60_000,
    });
    const first = sync({}, { toolCallId: 'c' });
    await until(() => state.runs === 1);
    clock.advance(LEASE_MS);
    const before = await onlyRecord(ledger);
    const waiting = track(sync({}, { toolCallId: 'c' }));
    await tick();

    const refused = await rejectionOf(ledger.markWorkerDead(before.key, AUDIT));
    expect(refused).toBeInstanceOf(LedgerWorkerAliveError);
    expect(await ledger.get(before.key)).toEqual(before);

    const marked = await ledger.markWorkerDead({ key: before.key }, { ...AUDIT, overrideHeartbeat: true });
    await advanceUntilSettled(clock, waiting.promise, 50);
    hold.resolve();

    expect(marked.workerDeath).toEqual({
      owner: before.owner,
      fence: before.fence + 1,
      by: AUDIT.by,
      reason: AUDIT.reason,
      at: 10_000 + LEASE_MS,
      overrideHeartbeat: true,
      heartbeatAgeMs: LEASE_MS,
    });
    expect(marked.error?.message).toContain('(heartbeat overridden)');
    expect(await waiting.promise).toBe('run 2');
    await expect(first).rejects.toBeInstanceOf(LedgerFencedError);
    // The signal named the dead owner; the new owner's claim is not covered by it.
    expect(await ledger.get(before.key)).toMatchObject({ outcome: 'COMPLETED', fence: before.fence + 2 });
  });

  it('accepts a stale heartbeat without an override', async () => {
    const { clock, ledger, hold, state, sync } = stalledTool('non_idempotent_mutate');
    void sync({}, { toolCallId: 'c' }).catch(() => undefined);
    await until(() => state.runs === 1);
    clock.advance(2 * LEASE_MS);
    const { key } = await onlyRecord(ledger);

    const marked = await ledger.markWorkerDead(key, AUDIT);
    hold.resolve();

    expect(marked.workerDeath).toMatchObject({ overrideHeartbeat: false, heartbeatAgeMs: 2 * LEASE_MS });
  });

  it('by `{ owner }` marks every claim of that owner, and refuses them all while one heartbeat is fresh', async () => {
    const clock = createManualClock(0);
    const ledger = newLedger({ clock, leaseTtlMs: LEASE_MS, leaseRenewIntervalMs: 0, ownerId: 'worker-a' });
    const other = newLedger({
      clock,
      leaseTtlMs: LEASE_MS,
      leaseRenewIntervalMs: 0,
      ownerId: 'worker-b',
      storage: ledger.storage,
    });
    const hold = deferred();
    const spec = { name: 'email', sideEffectClass: 'email' } as const;
    const mine = ledger.tool(spec, () => hold.promise);
    const theirs = other.tool(spec, () => hold.promise);
    const calls = [
      mine({ n: 1 }, { toolCallId: 'a1' }),
      mine({ n: 2 }, { toolCallId: 'a2' }),
      theirs({ n: 3 }, { toolCallId: 'b1' }),
    ];
    for (let i = 0; i < 5; i++) await tick();

    const refused = await rejectionOf(ledger.markWorkerDead({ owner: 'worker-a' }, AUDIT));
    const marked = await ledger.markWorkerDead({ owner: 'worker-a' }, { ...AUDIT, overrideHeartbeat: true });
    hold.resolve();
    await Promise.allSettled(calls);

    expect(refused).toBeInstanceOf(LedgerWorkerAliveError);
    expect(marked).toHaveLength(2);
    expect(marked.every((record) => record.owner?.startsWith('worker-a:') === true)).toBe(true);
    const page = await ledger.list();
    const untouched = page.records.find((record) => record.owner?.startsWith('worker-b:') === true);
    expect(untouched?.workerDeath).toBeUndefined();
  });
});

describe('release of an expired claim', () => {
  it('is refused while the owner may be alive, and allowed once it is marked dead', async () => {
    const { clock, ledger, hold, state, sync } = stalledTool('non_idempotent_mutate');
    const first = sync({}, { toolCallId: 'c' });
    await until(() => state.runs === 1);
    clock.advance(LEASE_MS);
    const { key } = await onlyRecord(ledger);
    const release = { verified: 'not_executed', ...AUDIT } as const;

    const refused = await rejectionOf(ledger.release(key, release));
    await ledger.markWorkerDead(key, { ...AUDIT, overrideHeartbeat: true });
    const released = await ledger.release(key, release);
    hold.resolve();
    await Promise.allSettled([first]);

    expect(refused).toBeInstanceOf(LedgerWorkerAliveError);
    expect(released.operatorResolution).toMatchObject({ verified: 'not_executed', by: AUDIT.by });
    // The released claim runs once more; the stalled owner was fenced and cannot spend it.
    expect(await sync({}, { toolCallId: 'c' })).toBe('run 2');
    expect(state.runs).toBe(2);
  });

  it('of a class the gate does not cover goes on lease expiry alone', async () => {
    const { clock, ledger, hold, state, sync } = stalledTool('non_idempotent_mutate', {
      reclaimRequiresDeathSignal: false,
    });
    void sync({}, { toolCallId: 'c' }).catch(() => undefined);
    await until(() => state.runs === 1);
    clock.advance(LEASE_MS);
    const { key } = await onlyRecord(ledger);

    const released = await ledger.release(key, { verified: 'not_executed', ...AUDIT });
    hold.resolve();

    expect(released.operatorResolution?.verified).toBe('not_executed');
  });
});
