/**
 * The poll timeout on the ledger clock: a waiter keeps waiting while the owner renews its lease,
 * gives up only at the poll timeout (default 30 minutes), and says how long it waited.
 */
import { describe, expect, it } from 'vitest';
import {
  createManualClock,
  createMemoryStorage,
  LedgerPollTimeoutError,
  type LedgerStorage,
  type ManualClock,
} from '../../src/index.js';
import { DEFAULT_POLL_TIMEOUT_MS } from '../../src/ledger/poll-timeout.js';
import { deferred, newLedger, onlyRecord, rejectionOf, tick, track, until } from './ledger-helpers.js';

const LEASE_MS = 300;

/** Move `clock` on in steps of `stepMs`, letting writes land between steps, until `done()` or `totalMs`. */
async function advance(clock: ManualClock, totalMs: number, stepMs: number, done: () => boolean = () => false) {
  for (let moved = 0; moved < totalMs && !done(); moved += stepMs) {
    clock.advance(stepMs);
    await tick();
  }
}

/** A memory store whose next `create` takes `slowCreateMs` on the clock (a slow first connection, say). */
function slowToConnect(clock: ManualClock): LedgerStorage & { slowCreateMs: number } {
  const inner = createMemoryStorage();
  const storage = Object.create(inner) as LedgerStorage & { slowCreateMs: number };
  storage.slowCreateMs = 0;
  storage.create = async (record) => {
    clock.advance(storage.slowCreateMs);
    storage.slowCreateMs = 0;
    return inner.create(record);
  };
  return storage;
}

describe('poll timeout', () => {
  it('defaults to 30 minutes and is never shorter than the lease', async () => {
    const { pollTimeoutOf } = await import('../../src/ledger/poll-timeout.js');

    expect(DEFAULT_POLL_TIMEOUT_MS).toBe(1_800_000);
    expect(pollTimeoutOf(undefined, LEASE_MS)).toBe(DEFAULT_POLL_TIMEOUT_MS);
    expect(pollTimeoutOf(undefined, 3_600_000)).toBe(3_600_000);
    expect(pollTimeoutOf(100, LEASE_MS)).toBe(LEASE_MS);
    expect(pollTimeoutOf(100, 0)).toBe(100);
  });

  it('a redispatch waits past the lease for as long as the owner renews, and gets the one result', async () => {
    const clock = createManualClock(0);
    const ledger = newLedger({ clock, leaseTtlMs: LEASE_MS, pollIntervalMs: 10, pollMaxIntervalMs: 50 });
    const finish = deferred<string>();
    let runs = 0;
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'payment' }, () => {
      runs++;
      return finish.promise;
    });
    const owner = pay({ amount: 5 }, { toolCallId: 'call_1' });
    await until(() => runs === 1);

    const peer = track(pay({ amount: 5 }, { toolCallId: 'call_1' }));
    // Forty leases of a slow call, renewed every third of a lease.
    await advance(clock, 40 * LEASE_MS, 20, () => peer.settled);
    const settledWhileRenewing = peer.settled;
    const { lastHeartbeatAt } = await onlyRecord(ledger);
    finish.resolve('paid');

    expect(settledWhileRenewing).toBe(false);
    expect(lastHeartbeatAt).toBeGreaterThan(39 * LEASE_MS);
    await expect(peer.promise).resolves.toBe('paid');
    await expect(owner).resolves.toBe('paid');
    expect(runs).toBe(1);
  });

  it('`waitFor` also waits past the lease while the owner renews', async () => {
    const clock = createManualClock(0);
    const ledger = newLedger({ clock, leaseTtlMs: LEASE_MS, pollIntervalMs: 10, pollMaxIntervalMs: 50 });
    const finish = deferred<string>();
    let started = false;
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'payment' }, () => {
      started = true;
      return finish.promise;
    });
    const owner = pay({ amount: 5 }, { toolCallId: 'call_1' });
    await until(() => started);
    const { key } = await onlyRecord(ledger);

    const waiting = track(ledger.waitFor(key));
    await advance(clock, 10 * LEASE_MS, 20, () => waiting.settled);
    const settledWhileRenewing = waiting.settled;
    finish.resolve('paid');

    expect(settledWhileRenewing).toBe(false);
    await expect(waiting.promise).resolves.toMatchObject({ outcome: 'COMPLETED' });
    await owner;
  });

  it('gives up at the poll timeout with the time waited since the call and the bound in the message', async () => {
    const clock = createManualClock(0);
    const storage = slowToConnect(clock);
    const ledger = newLedger({
      clock,
      storage,
      leaseTtlMs: LEASE_MS,
      pollTimeoutMs: 1_000,
      pollIntervalMs: 10,
      pollMaxIntervalMs: 50,
    });
    let started = false;
    const hang = ledger.tool({ name: 'hang', sideEffectClass: 'payment' }, () => {
      started = true;
      return new Promise<never>(() => undefined);
    });
    void hang({}, { toolCallId: 'call_1' });
    await until(() => started);

    storage.slowCreateMs = 477;
    const calledAt = clock.now();
    const peer = track(hang({}, { toolCallId: 'call_1' }));
    await advance(clock, 5_000, 10, () => peer.settled);
    const error = await rejectionOf(peer.promise);

    expect(error).toBeInstanceOf(LedgerPollTimeoutError);
    const { waitedMs, timeoutMs, message } = error as LedgerPollTimeoutError;
    expect(waitedMs).toBe(clock.now() - calledAt);
    expect(waitedMs).toBeGreaterThanOrEqual(1_000);
    expect(timeoutMs).toBe(1_000);
    expect(message).toContain(`Gave up after ${waitedMs} ms (poll timeout \`1000 ms\`)`);
    expect(message).toContain('whose owner still holds the lease');
  });
});
