import { describe, expect, it } from 'vitest';
import { type Ledger, LedgerHardBlockError, type SideEffectClass, type TransitionRecord } from '../../src/index.js';
import { deferred, newLedger, onlyRecord, rejectionOf, tick, track, until } from './ledger-helpers.js';

/** A payment provider that counts the charges it really made. */
function fakeProvider() {
  const gate = deferred();
  let charges = 0;
  return {
    get charges() {
      return charges;
    },
    /** Let every charge in progress finish. */
    release: () => gate.resolve(),
    async charge(amount: number): Promise<{ readonly id: string; readonly amount: number }> {
      await gate.promise;
      charges += 1;
      return { id: `ch_${charges}`, amount };
    },
  };
}

/** A wrapper that races its inner call against the signal and gives up on it, as LangChain's tool timeout does. */
function raceWithSignal<T>(inner: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (signal === undefined) return inner;
  return new Promise<T>((resolve, reject) => {
    signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    inner.then(resolve, reject);
  });
}

/** The one record, once its body settled and its outcome is written. */
async function settledRecord(ledger: Ledger): Promise<TransitionRecord> {
  for (let i = 0; i < 5_000; i++) {
    const record = await onlyRecord(ledger);
    if (record.outcome !== 'IN_FLIGHT') return record;
    await tick();
  }
  throw new Error('Timed out waiting for the outcome');
}

const timeout = (): DOMException => new DOMException('The operation timed out', 'TimeoutError');

describe('a call whose caller aborts while its body runs', () => {
  it('answers the caller at once, keeps the claim, and a retry polls and returns the one charge', async () => {
    const ledger = newLedger({ leaseTtlMs: 60_000 });
    const provider = fakeProvider();
    let bodies = 0;
    const pay = ledger.tool(
      { name: 'send_payment', sideEffectClass: 'keyed_mutate' },
      async (args: { amount: number }) => {
        bodies += 1;
        return provider.charge(args.amount);
      },
    );
    const controller = new AbortController();

    const first = track(pay({ amount: 40 }, { toolCallId: 'call_1', abortSignal: controller.signal }));
    await until(() => bodies === 1, 'the body to start');
    controller.abort(timeout());
    await until(() => first.settled, 'the aborted caller to be answered');
    const retry = pay({ amount: 40 }, { toolCallId: 'call_1' });
    expect((await onlyRecord(ledger)).outcome).toBe('IN_FLIGHT');
    provider.release();

    expect(((await rejectionOf(first.promise)) as Error).name).toBe('TimeoutError');
    expect(await retry).toEqual({ id: 'ch_1', amount: 40 });
    expect(provider.charges).toBe(1);
    expect(bodies).toBe(1);
    expect((await onlyRecord(ledger)).outcome).toBe('COMPLETED');
  });

  it.each(['keyed_mutate', 'payment', 'non_idempotent_mutate', 'irreversible'])(
    'records a `%s` body that gave up on its inner call as UNKNOWN, so a retry never charges twice',
    async (sideEffectClass) => {
      const ledger = newLedger();
      const provider = fakeProvider();
      let bodies = 0;
      const pay = ledger.tool(
        { name: 'send_payment', sideEffectClass },
        (args: { amount: number }, { abortSignal }) => {
          bodies += 1;
          return raceWithSignal(provider.charge(args.amount), abortSignal);
        },
      );
      const controller = new AbortController();

      const first = pay({ amount: 40 }, { toolCallId: 'call_1', abortSignal: controller.signal });
      await until(() => bodies === 1, 'the body to start');
      controller.abort(timeout());
      await rejectionOf(first);
      await settledRecord(ledger);
      const retry = rejectionOf(pay({ amount: 40 }, { toolCallId: 'call_1' }));
      provider.release();

      expect(await retry).toBeInstanceOf(LedgerHardBlockError);
      expect((await onlyRecord(ledger)).outcome).toBe('UNKNOWN');
      await until(() => provider.charges === 1, 'the abandoned charge to land');
      expect(provider.charges).toBe(1);
    },
  );

  it('treats any rejection that comes after the signal fired as ambiguous', async () => {
    const ledger = newLedger();
    const gate = deferred();
    let bodies = 0;
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'keyed_mutate' }, async () => {
      bodies += 1;
      await gate.promise;
      throw new Error('socket hang up');
    });
    const controller = new AbortController();

    const first = pay({}, { toolCallId: 'call_1', abortSignal: controller.signal });
    await until(() => bodies === 1, 'the body to start');
    controller.abort();
    await rejectionOf(first);
    gate.resolve();

    await settledRecord(ledger);
    expect((await onlyRecord(ledger)).outcome).toBe('UNKNOWN');
  });

  it('refuses a body rejected with a timeout of its own (no signal) as UNKNOWN', async () => {
    const ledger = newLedger();
    const error = Object.assign(new Error('Request timed out'), { name: 'APIConnectionTimeoutError' });
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'keyed_mutate' }, async () => {
      throw error;
    });

    expect(await rejectionOf(pay({}, { toolCallId: 'call_1' }))).toBe(error);
    expect((await onlyRecord(ledger)).outcome).toBe('UNKNOWN');
    expect(await rejectionOf(pay({}, { toolCallId: 'call_1' }))).toBeInstanceOf(LedgerHardBlockError);
  });

  it.each<SideEffectClass>(['read', 'idempotent_mutate'])(
    'lets a `%s` call that was aborted run again (multi_use)',
    async (sideEffectClass) => {
      const ledger = newLedger();
      let runs = 0;
      const fetchIt = ledger.tool({ name: 'fetch_it', sideEffectClass }, async (_args: object, { abortSignal }) => {
        runs += 1;
        if (runs === 1) return raceWithSignal(new Promise<never>(() => undefined), abortSignal);
        return 'fresh';
      });
      const controller = new AbortController();

      const first = fetchIt({}, { toolCallId: 'call_1', abortSignal: controller.signal });
      await until(() => runs === 1, 'the body to start');
      controller.abort();
      await rejectionOf(first);
      await settledRecord(ledger);

      expect((await onlyRecord(ledger)).outcome).toBe('FAILED_BEFORE_EFFECT');
      expect(await fetchIt({}, { toolCallId: 'call_1' })).toBe('fresh');
    },
  );

  it('keeps an ordinary error before the boundary FAILED_BEFORE_EFFECT', async () => {
    const ledger = newLedger();
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'keyed_mutate' }, async () => {
      throw new Error('card declined');
    });

    await rejectionOf(pay({}, { toolCallId: 'call_1' }));

    expect((await onlyRecord(ledger)).outcome).toBe('FAILED_BEFORE_EFFECT');
  });

  it('claims nothing and runs nothing for a signal that fired before the call', async () => {
    const ledger = newLedger();
    let runs = 0;
    const pay = ledger.tool({ name: 'send_payment', sideEffectClass: 'non_idempotent_mutate' }, () => {
      runs += 1;
    });
    const reason = new Error('user cancelled');

    expect(await rejectionOf(pay({}, { toolCallId: 'call_1', abortSignal: AbortSignal.abort(reason) }))).toBe(reason);
    expect(runs).toBe(0);
    expect((await ledger.list()).records).toEqual([]);
    await pay({}, { toolCallId: 'call_1' });
    expect(runs).toBe(1);
  });
});
