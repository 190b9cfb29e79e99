import { describe, expect, it } from 'vitest';
import { createManualClock, LedgerPollTimeoutError, sideEffect } from '../../src/index.js';
import { deferred, instrumentedStorage, newLedger, onlyRecord, tick, track, until } from './ledger-helpers.js';

describe('waitFor', () => {
  it('returns the terminal record once the running call finishes', async () => {
    const storage = instrumentedStorage();
    const ledger = newLedger({ storage, pollIntervalMs: 2, pollMaxIntervalMs: 5 });
    const hold = deferred();
    let started = false;
    const exportReport = ledger.tool({ name: 'export_report', sideEffectClass: 'idempotent_mutate' }, async () => {
      started = true;
      await hold.promise;
      return { rows: 42 };
    });
    const running = exportReport({ month: '2026-06' }, { toolCallId: 'c' });
    await until(() => started);
    const { key } = await onlyRecord(ledger);

    const readsBefore = storage.calls.get;

    const waiting = track(ledger.waitFor(key));
    await until(() => storage.calls.get >= readsBefore + 2, 'waitFor to poll');
    const settledEarly = waiting.settled;
    hold.resolve();
    const record = await waiting.promise;

    expect(settledEarly).toBe(false);
    expect(record).toMatchObject({ key, outcome: 'COMPLETED', result: { rows: 42 } });
    await expect(running).resolves.toEqual({ rows: 42 });
  });

  it('returns a terminal record at once', async () => {
    const ledger = newLedger();
    const fail = ledger.tool({ name: 'fail', sideEffectClass: 'idempotent_mutate' }, () => {
      throw new Error('nope');
    });
    await expect(fail({})).rejects.toThrow('nope');
    const { key } = await onlyRecord(ledger);

    await expect(ledger.waitFor(key)).resolves.toMatchObject({ outcome: 'FAILED_BEFORE_EFFECT' });
  });

  it('gives up with LedgerPollTimeoutError after its timeout on the ledger clock', async () => {
    const clock = createManualClock(0);
    const ledger = newLedger({ clock, pollIntervalMs: 10, pollMaxIntervalMs: 10 });
    let started = false;
    const hang = ledger.tool({ name: 'hang', sideEffectClass: 'idempotent_mutate' }, () => {
      started = true;
      return new Promise<never>(() => undefined);
    });
    void hang({});
    await until(() => started);
    const { key } = await onlyRecord(ledger);

    const waiting = track(ledger.waitFor(key, { timeoutMs: 100 }));
    for (let step = 0; step < 100 && !waiting.settled; step++) {
      await tick();
      clock.advance(10);
    }

    await expect(waiting.promise).rejects.toBeInstanceOf(LedgerPollTimeoutError);
  });

  it('refuses an unknown key', async () => {
    const ledger = newLedger();

    await expect(ledger.waitFor('0'.repeat(64))).rejects.toMatchObject({ code: 'ledger_not_found' });
  });
});

describe('list', () => {
  async function mixedLedger() {
    const ledger = newLedger();
    const ok = ledger.tool({ name: 'ok', sideEffectClass: 'idempotent_mutate' }, () => 'fine');
    const before = ledger.tool({ name: 'before', sideEffectClass: 'idempotent_mutate' }, () => {
      throw new Error('before');
    });
    const inside = ledger.tool({ name: 'inside', sideEffectClass: 'payment' }, () =>
      sideEffect(() => {
        throw new Error('inside');
      }),
    );
    await ok({});
    await before({}).catch(() => undefined);
    await inside({}).catch(() => undefined);
    return ledger;
  }

  it('filters by one outcome', async () => {
    const ledger = await mixedLedger();

    const page = await ledger.list({ outcome: 'COMPLETED' });

    expect(page.records.map((r) => r.tool)).toEqual(['ok']);
  });

  it('filters by several outcomes', async () => {
    const ledger = await mixedLedger();

    const page = await ledger.list({ outcome: ['UNKNOWN', 'FAILED_BEFORE_EFFECT'] });

    expect(page.records.map((r) => r.tool).sort()).toEqual(['before', 'inside']);
  });

  it('lists everything without a filter, and nothing for an outcome no record has', async () => {
    const ledger = await mixedLedger();

    expect((await ledger.list()).records).toHaveLength(3);
    expect((await ledger.list({ outcome: 'BLOCKED' })).records).toEqual([]);
  });

  it('filters by tool', async () => {
    const ledger = await mixedLedger();

    expect((await ledger.list({ tool: 'inside' })).records.map((r) => r.outcome)).toEqual(['UNKNOWN']);
  });
});
