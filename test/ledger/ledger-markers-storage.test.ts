import { describe, expect, it } from 'vitest';
import {
  createManualClock,
  LedgerHardBlockError,
  LedgerStorageUnavailableError,
  markCrossed,
  markMaybeCrossed,
  recordExternalOperation,
  renewLease,
  sideEffect,
} from '../../src/index.js';
import { collectingLogger, instrumentedStorage, newLedger, onlyRecord, rejectionOf } from './ledger-helpers.js';

describe('boundary markers outside a ledgered tool', () => {
  it('do nothing, and sideEffect still runs its function', async () => {
    let ran = 0;

    const value = await sideEffect(() => {
      ran++;
      return 'charged';
    });
    await markMaybeCrossed();
    await markCrossed();
    await recordExternalOperation('op_1');
    await renewLease();

    expect(value).toBe('charged');
    expect(ran).toBe(1);
  });

  it('sideEffect passes on its function’s error', async () => {
    const failure = new Error('declined');

    await expect(sideEffect(() => Promise.reject(failure))).rejects.toBe(failure);
  });

  it('inside ledger.run but outside a tool, warn exactly once through the logger', async () => {
    const logger = collectingLogger();
    const ledger = newLedger({ logger });

    const values = await ledger.run({ threadId: 't', runId: 'r' }, async () => [
      await sideEffect(() => 1),
      await sideEffect(() => 2),
      await sideEffect(() => 3),
    ]);

    expect(values).toEqual([1, 2, 3]);
    const warnings = logger.entries.filter((entry) => entry.level === 'warn');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]?.message).toContain('sideEffect');
  });

  it('inside a tool called within ledger.run, mark the tool’s record and do not warn', async () => {
    const logger = collectingLogger();
    const ledger = newLedger({ logger });
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment' }, async () => {
      await recordExternalOperation('ch_1');
      await sideEffect(() => 'ok');
      throw new Error('response lost');
    });

    await ledger.run({ runId: 'r' }, () =>
      expect(charge({ amount: 1 }, { toolCallId: 'call_1' })).rejects.toThrow('response lost'),
    );

    expect(await onlyRecord(ledger)).toMatchObject({ outcome: 'FAILED_AFTER_EFFECT', externalOperationRef: 'ch_1' });
    expect(logger.entries.filter((entry) => entry.level === 'warn')).toEqual([]);
  });
});

describe('boundary markers inside a ledgered tool', () => {
  it('sideEffect writes maybe_crossed durably before its function runs', async () => {
    const ledger = newLedger();
    let seen: string | undefined;
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment' }, () =>
      sideEffect(async () => {
        seen = (await onlyRecord(ledger)).boundary;
        return 'ok';
      }),
    );

    await charge({ amount: 1 });

    expect(seen).toBe('maybe_crossed');
    expect((await onlyRecord(ledger)).boundary).toBe('crossed');
  });

  it('recordExternalOperation refuses an empty ref', async () => {
    const ledger = newLedger();
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment' }, () => recordExternalOperation(''));

    await expect(charge({ amount: 1 })).rejects.toMatchObject({ code: 'invalid_argument', argument: 'ref' });
  });
});

describe('storage failures', () => {
  it('storage down at claim: LedgerStorageUnavailableError and the body never runs', async () => {
    const storage = instrumentedStorage();
    const cause = new Error('ECONNREFUSED');
    storage.fail('create', cause);
    const ledger = newLedger({ storage });
    let runs = 0;
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment' }, () => {
      runs++;
    });

    const error = await rejectionOf(charge({ amount: 1 }, { toolCallId: 'c' }));

    expect(error).toBeInstanceOf(LedgerStorageUnavailableError);
    expect((error as LedgerStorageUnavailableError).operation).toBe('claim');
    expect((error as LedgerStorageUnavailableError).cause).toBe(cause);
    expect(runs).toBe(0);
  });

  it('storage failing while the tool’s error is recorded: the tool’s error wins', async () => {
    const storage = instrumentedStorage();
    const logger = collectingLogger();
    const ledger = newLedger({ storage, logger });
    const failure = new Error('tool exploded');
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment' }, () => {
      storage.fail('update', new Error('connection reset'));
      throw failure;
    });

    const error = await rejectionOf(charge({ amount: 1 }, { toolCallId: 'c' }));

    expect(error).toBe(failure);
    expect(logger.entries.some((entry) => entry.level === 'error')).toBe(true);
    // The failure was not recorded: the lease decides what happens next.
    expect((await onlyRecord(ledger)).outcome).toBe('IN_FLIGHT');
  });

  it('storage failing at the sideEffect mark: the external call does not run', async () => {
    const storage = instrumentedStorage();
    const ledger = newLedger({ storage });
    let effects = 0;
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment' }, () => {
      storage.fail('update', new Error('connection reset'));
      return sideEffect(() => {
        effects++;
      });
    });

    const error = await rejectionOf(charge({ amount: 1 }, { toolCallId: 'c' }));

    expect(error).toBeInstanceOf(LedgerStorageUnavailableError);
    expect(effects).toBe(0);
  });

  it('storage failing at completion: the caller gets its result, and a later redispatch is blocked, not re-run', async () => {
    const storage = instrumentedStorage();
    const logger = collectingLogger();
    const clock = createManualClock(1_000);
    const ledger = newLedger({ storage, logger, clock, leaseTtlMs: 1_000, leaseRenewIntervalMs: 1e9 });
    let effects = 0;
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment' }, async () => {
      const receipt = await sideEffect(() => {
        effects++;
        return { id: 'ch_1' };
      });
      storage.fail('update', new Error('connection reset'));
      return receipt;
    });

    const result = await charge({ amount: 1 }, { toolCallId: 'c' });
    storage.fail('update', null);
    clock.advance(1_000);
    const redispatch = await rejectionOf(charge({ amount: 1 }, { toolCallId: 'c' }));

    expect(result).toEqual({ id: 'ch_1' });
    expect(logger.entries.some((entry) => entry.level === 'error')).toBe(true);
    expect(redispatch).toBeInstanceOf(LedgerHardBlockError);
    expect(effects).toBe(1);
  });
});
