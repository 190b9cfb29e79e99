import { describe, expect, it } from 'vitest';
import {
  createManualClock,
  LedgerHardBlockError,
  type LedgerOptions,
  type ReconcileRequest,
  type Reconciler,
  recordExternalOperation,
  sideEffect,
} from '../../src/index.js';
import { deferred, newLedger, onlyRecord, rejectionOf, until } from './ledger-helpers.js';

/**
 * A charge tool whose first run records its provider operation and then loses the response inside
 * `sideEffect` (UNKNOWN with an external ref), so the next call hard-blocks and asks the reconciler.
 */
async function unknownCharge(reconciler: Reconciler | undefined, options: Partial<LedgerOptions> = {}) {
  const requests: ReconcileRequest[] = [];
  const counting: Reconciler | undefined =
    reconciler === undefined
      ? undefined
      : (request) => {
          requests.push(request);
          return reconciler(request);
        };
  const ledger = newLedger({ ...options, ...(counting === undefined ? {} : { reconciler: counting }) });
  const state = { runs: 0 };
  const charge = ledger.tool(
    { name: 'charge', sideEffectClass: 'non_idempotent_mutate' },
    async (args: { amount: number }) => {
      state.runs++;
      await recordExternalOperation(`op_${state.runs}`);
      return sideEffect(() => {
        if (state.runs === 1) throw new Error('response lost');
        return { charged: args.amount, run: state.runs };
      });
    },
  );
  await expect(charge({ amount: 7 }, { toolCallId: 'c' })).rejects.toThrow('response lost');
  return { ledger, state, charge, requests };
}

describe('reconciler', () => {
  it('COMPLETED: the result is stored and returned without running', async () => {
    const { ledger, state, charge, requests } = await unknownCharge(() => ({
      status: 'COMPLETED',
      result: { id: 'ch_1' },
    }));

    const result = await charge({ amount: 7 }, { toolCallId: 'c' });
    const again = await charge({ amount: 7 }, { toolCallId: 'c' });

    expect(result).toEqual({ id: 'ch_1' });
    expect(again).toEqual({ id: 'ch_1' });
    expect(state.runs).toBe(1);
    expect(requests).toHaveLength(1);
    expect(await onlyRecord(ledger)).toMatchObject({
      outcome: 'COMPLETED',
      boundary: 'crossed',
      result: { id: 'ch_1' },
    });
  });

  it('is asked about the recorded operation, with the record and the new call’s arguments', async () => {
    const { requests, charge } = await unknownCharge(() => ({ status: 'COMPLETED' }));

    await charge({ amount: 7 }, { toolCallId: 'c' });

    expect(requests[0]).toMatchObject({ externalOperationRef: 'op_1', args: { amount: 7 } });
    expect(requests[0]?.record.outcome).toBe('UNKNOWN');
    expect(requests[0]?.signal).toBeInstanceOf(AbortSignal);
  });

  it('NOT_EXECUTED: the tool runs exactly once more', async () => {
    const { ledger, state, charge, requests } = await unknownCharge(() => ({ status: 'NOT_EXECUTED' }));

    const result = await charge({ amount: 7 }, { toolCallId: 'c' });
    const again = await charge({ amount: 7 }, { toolCallId: 'c' });

    expect(result).toEqual({ charged: 7, run: 2 });
    expect(again).toEqual(result);
    expect(state.runs).toBe(2);
    expect(requests).toHaveLength(1);
    expect(await onlyRecord(ledger)).toMatchObject({
      outcome: 'COMPLETED',
      attempts: 2,
      fence: 2,
      externalOperationRef: 'op_2',
    });
  });

  it('UNKNOWN: hard block', async () => {
    const { state, charge } = await unknownCharge(() => ({ status: 'UNKNOWN', reason: 'provider says maybe' }));

    const error = await rejectionOf(charge({ amount: 7 }, { toolCallId: 'c' }));

    expect(error).toBeInstanceOf(LedgerHardBlockError);
    expect((error as Error).message).toContain('provider says maybe');
    expect(state.runs).toBe(1);
  });

  it('a throwing reconciler: hard block naming the external ref', async () => {
    const { state, charge } = await unknownCharge(() => {
      throw new Error('provider API 503');
    });

    const error = await rejectionOf(charge({ amount: 7 }, { toolCallId: 'c' }));

    expect(error).toBeInstanceOf(LedgerHardBlockError);
    expect((error as Error).message).toContain('`op_1`');
    expect((error as Error).message).toContain('provider API 503');
    expect(state.runs).toBe(1);
  });

  it('a reconciler answering nonsense: hard block', async () => {
    const { state, charge } = await unknownCharge(() => ({ status: 'MAYBE' }) as unknown as { status: 'UNKNOWN' });

    await expect(charge({ amount: 7 }, { toolCallId: 'c' })).rejects.toBeInstanceOf(LedgerHardBlockError);
    expect(state.runs).toBe(1);
  });

  it('a reconciler slower than reconcileTimeoutMs: hard block, and its signal is aborted', async () => {
    const clock = createManualClock(1_000);
    const called = deferred<ReconcileRequest>();
    const { state, charge } = await unknownCharge(
      (request) => {
        called.resolve(request);
        return new Promise(() => undefined);
      },
      { clock, reconcileTimeoutMs: 500 },
    );

    const blocked = rejectionOf(charge({ amount: 7 }, { toolCallId: 'c' }));
    const request = await called.promise;
    clock.advance(500);
    const error = await blocked;

    expect(error).toBeInstanceOf(LedgerHardBlockError);
    expect((error as Error).message).toContain('500 ms');
    expect(request.signal.aborted).toBe(true);
    expect(state.runs).toBe(1);
  });

  it('without an external ref the reconciler is not asked', async () => {
    const asked: unknown[] = [];
    const ledger = newLedger({
      reconciler: (request) => {
        asked.push(request);
        return { status: 'NOT_EXECUTED' };
      },
    });
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'non_idempotent_mutate' }, () =>
      sideEffect(() => {
        throw new Error('response lost');
      }),
    );
    await expect(charge({}, { toolCallId: 'c' })).rejects.toThrow('response lost');

    await expect(charge({}, { toolCallId: 'c' })).rejects.toBeInstanceOf(LedgerHardBlockError);
    expect(asked).toEqual([]);
  });

  it('a tool’s own reconciler wins over the ledger’s', async () => {
    const ledger = newLedger({ reconciler: () => ({ status: 'UNKNOWN' }) });
    let runs = 0;
    const charge = ledger.tool(
      {
        name: 'charge',
        sideEffectClass: 'non_idempotent_mutate',
        reconciler: () => ({ status: 'COMPLETED', result: 'tool said so' }),
      },
      async () => {
        runs++;
        await recordExternalOperation('op');
        return sideEffect(() => {
          throw new Error('response lost');
        });
      },
    );
    await expect(charge({}, { toolCallId: 'c' })).rejects.toThrow('response lost');

    await expect(charge({}, { toolCallId: 'c' })).resolves.toBe('tool said so');
    expect(runs).toBe(1);
  });

  it('two concurrent callers told NOT_EXECUTED: the body runs once and both get its result', async () => {
    const bothAsking = deferred();
    let asking = 0;
    const { state, charge, requests } = await unknownCharge(
      async () => {
        asking++;
        if (asking === 2) bothAsking.resolve();
        await bothAsking.promise;
        return { status: 'NOT_EXECUTED' };
      },
      { pollIntervalMs: 2, pollMaxIntervalMs: 5 },
    );

    const [a, b] = await Promise.all([
      charge({ amount: 7 }, { toolCallId: 'c' }),
      charge({ amount: 7 }, { toolCallId: 'c' }),
    ]);

    expect(requests).toHaveLength(2);
    expect(a).toEqual({ charged: 7, run: 2 });
    expect(b).toEqual(a);
    expect(state.runs).toBe(2);
  });

  it('a NOT_EXECUTED rerun that is still running makes a concurrent caller poll, not run', async () => {
    const hold = deferred();
    const ledger = newLedger({
      reconciler: () => ({ status: 'NOT_EXECUTED' }),
      pollIntervalMs: 2,
      pollMaxIntervalMs: 5,
    });
    let runs = 0;
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'non_idempotent_mutate' }, async () => {
      runs++;
      await recordExternalOperation('op');
      if (runs === 2) await hold.promise;
      return sideEffect(() => {
        if (runs === 1) throw new Error('response lost');
        return 'charged';
      });
    });
    await expect(charge({}, { toolCallId: 'c' })).rejects.toThrow('response lost');
    const rerun = charge({}, { toolCallId: 'c' });
    await until(() => runs === 2);

    const peer = charge({}, { toolCallId: 'c' });
    hold.resolve();

    await expect(Promise.all([rerun, peer])).resolves.toEqual(['charged', 'charged']);
    expect(runs).toBe(2);
  });
});
