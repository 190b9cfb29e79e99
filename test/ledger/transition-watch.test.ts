import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createManualClock } from '../../src/core/clock.js';
import { createLedger } from '../../src/index.js';
import { createMemoryStorage } from '../../src/storage/memory.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { deferred, instrumentedStorage, newLedger, rejectionOf, track, until } from './ledger-helpers.js';

// Every test runs on a manual clock that is never advanced unless the test says so: a poller that
// returns did so because it was woken, not because its poll interval went by.
const POLL = { pollIntervalMs: 1_000, pollMaxIntervalMs: 1_000, leaseTtlMs: 60_000 };

function slowTool(ledger: ReturnType<typeof newLedger>, release: Promise<void>) {
  const runs = { count: 0 };
  const tool = ledger.tool({ name: 'build_report', sideEffectClass: 'idempotent_mutate' }, async (args: unknown) => {
    runs.count += 1;
    await release;
    return { args, pages: 3 };
  });
  return { tool, runs };
}

/** A ledger on a manual clock whose first call of `build_report` is running and held. */
async function heldCall(id: string, storage = instrumentedStorage()) {
  const clock = createManualClock(1_000);
  const ledger = newLedger({ storage, clock, ...POLL });
  const release = deferred();
  const { tool, runs } = slowTool(ledger, release.promise);
  const first = tool({ id }, { toolCallId: `call_${id}` });
  await until(() => runs.count === 1, 'the first body to start');
  return { clock, ledger, storage, release, tool, runs, first };
}

describe('in-process wake-up of pollers', () => {
  it('a redispatch polling a running call returns as soon as the first call completes, without waiting out its poll', async () => {
    const { clock, storage, release, tool, runs, first } = await heldCall('r1');
    const readsBefore = storage.calls.get + storage.calls.create;
    const second = track(tool({ id: 'r1' }, { toolCallId: 'call_r1' }));
    await until(() => clock.pending > 1, 'the second call to sleep before its next poll');
    expect(second.settled).toBe(false);

    release.resolve();
    const [a, b] = await Promise.all([first, second.promise]);
    expect(b).toEqual(a);
    expect(runs.count).toBe(1);
    expect(clock.now()).toBe(1_000);
    // The woken poller read the record again rather than trusting the wake-up.
    expect(storage.calls.get + storage.calls.create).toBeGreaterThan(readsBefore + 1);
  });

  it('two ledgers over one storage object wake each other; a failure wakes the poller too', async () => {
    const clock = createManualClock(0);
    const storage = createMemoryStorage();
    const owner = createLedger({ storage, clock, agentId: 'agent', policyVersion: 'p1', ...POLL });
    const other = createLedger({ storage, clock, agentId: 'agent', policyVersion: 'p1', ...POLL });
    const release = deferred();
    let runs = 0;
    const spec = { name: 'send_invoice', sideEffectClass: 'idempotent_mutate' } as const;
    const failing = owner.tool(spec, async () => {
      runs += 1;
      await release.promise;
      throw new Error('gateway refused the invoice');
    });
    const redispatch = other.tool(spec, async () => {
      runs += 1;
      return 'sent';
    });

    const first = failing({ invoice: 7 }, { toolCallId: 'call_7' });
    await until(() => runs === 1, 'the first body to start');
    const second = track(redispatch({ invoice: 7 }, { toolCallId: 'call_7' }));
    await until(() => clock.pending > 1, 'the second call to sleep before its next poll');

    release.resolve();
    await expect(first).rejects.toThrow('gateway refused the invoice');
    // FAILED_BEFORE_EFFECT on an idempotent_mutate tool may run again: the woken poller claims it.
    await expect(second.promise).resolves.toBe('sent');
    expect(runs).toBe(2);
    expect(clock.now()).toBe(0);
  });

  it('waitFor returns when the transition settles in this process', async () => {
    const { clock, ledger, release, first } = await heldCall('r2');
    const [record] = (await ledger.list()).records;
    if (record === undefined) throw new Error('no record');

    const waited = track(ledger.waitFor(record.key));
    await until(() => clock.pending > 1, 'waitFor to sleep');
    expect(waited.settled).toBe(false);
    release.resolve();
    await first;
    await expect(waited.promise).resolves.toMatchObject({ outcome: 'COMPLETED', key: record.key });
  });

  it("an abort during the wait still rejects with the caller's reason", async () => {
    const { clock, release, tool, runs, first } = await heldCall('r3');
    const controller = new AbortController();
    const second = tool({ id: 'r3' }, { toolCallId: 'call_r3', abortSignal: controller.signal });
    await until(() => clock.pending > 1, 'the second call to sleep');
    const reason = new Error('the user cancelled the run');
    controller.abort(reason);
    expect(await rejectionOf(second)).toBe(reason);

    release.resolve();
    await expect(first).resolves.toMatchObject({ pages: 3 });
    expect(runs.count).toBe(1);
  });
});

describe('pollers outside the process (another storage object)', () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
    dir = undefined;
  });

  it('keep polling on their own interval and see the result at their next poll', async () => {
    dir = await mkdtemp(join(tmpdir(), 'hyphae-watch-'));
    const path = join(dir, 'ledger.db');
    const clock = createManualClock(0);
    const ownerStorage = createSqliteStorage({ path });
    const otherStorage = createSqliteStorage({ path });
    try {
      const owner = createLedger({ storage: ownerStorage, clock, agentId: 'agent', policyVersion: 'p1', ...POLL });
      const other = createLedger({ storage: otherStorage, clock, agentId: 'agent', policyVersion: 'p1', ...POLL });
      const release = deferred();
      const { tool, runs } = slowTool(owner, release.promise);
      const { tool: redispatch } = slowTool(other, Promise.resolve());

      const first = tool({ id: 'r4' }, { toolCallId: 'call_4' });
      await until(() => runs.count === 1, 'the first body to start');
      const second = track(redispatch({ id: 'r4' }, { toolCallId: 'call_4' }));
      await until(() => clock.pending > 1, 'the second call to sleep');

      release.resolve();
      const result = await first;
      // Give a wrongly woken poller every chance to return before the clock moves.
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      expect(second.settled).toBe(false);

      clock.advance(POLL.pollIntervalMs);
      await expect(second.promise).resolves.toEqual(result);
      expect(runs.count).toBe(1);
    } finally {
      await ownerStorage.close();
      await otherStorage.close();
    }
  });
});
