import { describe, expect, it } from 'vitest';
import type { ReconcileRequest, ReconcilerObject } from '../../src/index.js';
import { createManualClock, recordExternalOperation, sideEffect } from '../../src/index.js';
import { deferred, newLedger } from './ledger-helpers.js';

describe('reconcilers written as objects (mycelium-runtime’s protocol)', () => {
  it('calls the object’s reconcile on a hard block, so an ambiguous payment is resolved, not blocked', async () => {
    const asked: string[] = [];
    const reconciler: ReconcilerObject = {
      // A method that uses `this`, as a class-based reconciler does.
      status: 'COMPLETED' as const,
      reconcile(this: { status: 'COMPLETED' }, request: ReconcileRequest) {
        asked.push(request.externalOperationRef);
        return { status: this.status, result: { charged: 7, from: 'provider' } };
      },
    } as ReconcilerObject & { status: 'COMPLETED' };
    const ledger = newLedger();
    let runs = 0;
    const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment', reconciler }, async () => {
      runs += 1;
      await recordExternalOperation(`op_${runs}`);
      return sideEffect(() => {
        if (runs === 1) throw new Error('response lost');
        return { charged: 7, run: runs };
      });
    });
    await expect(charge({ amount: 7 }, { toolCallId: 'c' })).rejects.toThrow('response lost');

    const again = await charge({ amount: 7 }, { toolCallId: 'c' });

    expect(again).toEqual({ charged: 7, from: 'provider' });
    expect(asked).toEqual(['op_1']);
    expect(runs).toBe(1);
  });

  it('refuses, at definition, a reconciler that is neither a function nor an object with reconcile', () => {
    const ledger = newLedger();
    for (const reconciler of [{ reconcile_async: () => ({ status: 'UNKNOWN' }) }, 'stripe', null]) {
      expect(() =>
        ledger.tool({ name: 'charge', sideEffectClass: 'payment', reconciler: reconciler as never }, () => 1),
      ).toThrow(
        expect.objectContaining({ code: 'invalid_option', message: expect.stringContaining('`reconcile(request)`') }),
      );
    }
    expect(() => newLedger({ reconciler: { reconcile: 5 } as never })).toThrow(
      expect.objectContaining({ code: 'invalid_option' }),
    );
  });
});

describe('lease renewal turned off with 0', () => {
  async function leaseAfter(leaseRenewIntervalMs: number | undefined): Promise<{ before: number; after: number }> {
    const clock = createManualClock(1_000);
    const ledger = newLedger({
      clock,
      leaseTtlMs: 900,
      ...(leaseRenewIntervalMs === undefined ? {} : { leaseRenewIntervalMs }),
    });
    const gate = deferred<void>();
    const started = deferred<void>();
    const slow = ledger.tool({ name: 'slow', sideEffectClass: 'idempotent_mutate' }, async () => {
      started.resolve();
      await gate.promise;
      return 'done';
    });
    const call = slow({}, { toolCallId: 'c' });
    await started.promise;
    const [record] = (await ledger.list()).records;
    const before = record?.leaseUntil ?? 0;
    clock.advance(400); // past a third of the lease: a renewing owner has renewed by now
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    const after = (await ledger.get(record?.key ?? ''))?.leaseUntil ?? 0;
    gate.resolve();
    await call;
    return { before, after };
  }

  it('renews by default, and never with leaseRenewIntervalMs: 0', async () => {
    const renewing = await leaseAfter(undefined);
    const off = await leaseAfter(0);

    expect(renewing.after).toBeGreaterThan(renewing.before);
    expect(off.after).toBe(off.before);
  });

  it('still refuses a negative interval', () => {
    expect(() => newLedger({ leaseRenewIntervalMs: -1 })).toThrow(expect.objectContaining({ code: 'invalid_option' }));
  });
});
