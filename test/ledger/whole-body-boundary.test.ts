/**
 * `boundary: 'body'` on every store: the claim itself is written `maybe_crossed` (with the caller's
 * `externalOperationRef`, when it gives one), so a call costs
 * two store writes (claim, complete) instead of three, a body that fails for any reason leaves an
 * UNKNOWN record that is never run again, and a call aborted between its claim and its body is
 * recorded as not started.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { runDurableOperation } from '../../src/adapters/dbos.js';
import { createMemoryStorage, LedgerHardBlockError, type LedgerStorage, sideEffect } from '../../src/index.js';
import { everyStore, ledgerOn } from '../helpers/every-store.js';

const stores = await everyStore();
const SPEC = { name: 'charge', sideEffectClass: 'payment' } as const;

/** The store, with its writes counted and a hook run after each create. */
function counted(storage: LedgerStorage, afterCreate: () => void = () => {}) {
  const writes = { create: 0, update: 0 };
  const wrapped = new Proxy(storage, {
    get(target, property, receiver) {
      if (property === 'create') {
        return async (record: Parameters<LedgerStorage['create']>[0]) => {
          writes.create++;
          const result = await target.create(record);
          afterCreate();
          return result;
        };
      }
      if (property === 'update') {
        return (...args: Parameters<LedgerStorage['update']>) => {
          writes.update++;
          return target.update(...args);
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { storage: wrapped, writes };
}

describe.each(stores)("boundary: 'body' on %s", (_name, backend) => {
  afterAll(() => backend.dispose());

  it('runs the body under a claim already maybe_crossed, completes crossed, in two writes', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const { storage: counting, writes } = counted(storage);
      const ledger = ledgerOn(counting);
      const seen: string[] = [];
      const charge = ledger.tool({ ...SPEC, boundary: 'body' }, async (args: { cents: number }) => {
        const { records } = await ledger.list();
        seen.push(records.find((record) => record.tool === 'charge')?.boundary ?? 'none');
        return { cents: args.cents };
      });
      const id = `call-${randomUUID()}`;

      // The provider key the caller chose rides on the claim too, for a reconciler: no extra write.
      expect(await charge({ cents: 5 }, { toolCallId: id, externalOperationRef: `key-${id}` })).toEqual({ cents: 5 });
      expect(seen).toEqual(['maybe_crossed']);
      expect(writes).toEqual({ create: 1, update: 1 });
      const [record] = (await ledger.list()).records;
      expect(record).toMatchObject({ outcome: 'COMPLETED', boundary: 'crossed', externalOperationRef: `key-${id}` });

      expect(await charge({ cents: 5 }, { toolCallId: id })).toEqual({ cents: 5 });
      expect(writes).toEqual({ create: 2, update: 1 });
    } finally {
      await cleanup();
    }
  });

  it('the marked default costs a third write, and a sideEffect() under a body boundary costs none', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const { storage: counting, writes } = counted(storage);
      const ledger = ledgerOn(counting);
      const marked = ledger.tool(SPEC, () => sideEffect(() => 'sent'));
      const whole = ledger.tool({ ...SPEC, name: 'refund', boundary: 'body' }, () => sideEffect(() => 'sent'));

      await marked({}, { toolCallId: `a-${randomUUID()}` });
      expect(writes).toEqual({ create: 1, update: 2 });
      await whole({}, { toolCallId: `b-${randomUUID()}` });
      expect(writes).toEqual({ create: 2, update: 3 });
    } finally {
      await cleanup();
    }
  });

  it('a body that failed before doing anything is UNKNOWN and never run again', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      let runs = 0;
      const charge = ledger.tool({ ...SPEC, boundary: 'body' }, async () => {
        runs++;
        throw new Error('The provider refused the connection');
      });
      const id = `call-${randomUUID()}`;

      await expect(charge({}, { toolCallId: id })).rejects.toThrow('The provider refused the connection');
      await expect(charge({}, { toolCallId: id })).rejects.toBeInstanceOf(LedgerHardBlockError);
      expect(runs).toBe(1);
      expect((await ledger.list()).records[0]).toMatchObject({ outcome: 'UNKNOWN', boundary: 'maybe_crossed' });
    } finally {
      await cleanup();
    }
  });

  it('a call aborted between its claim and its body is recorded as not started, and runs on the retry', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const abort = new AbortController();
      const { storage: counting } = counted(storage, () => abort.abort(new Error('The turn was cancelled')));
      const ledger = ledgerOn(counting);
      let runs = 0;
      const reserve = ledger.tool(
        { name: 'reserve', sideEffectClass: 'idempotent_mutate', boundary: 'body' },
        () => ++runs,
      );
      const id = `call-${randomUUID()}`;

      await expect(reserve({}, { toolCallId: id, abortSignal: abort.signal })).rejects.toThrow(
        'The turn was cancelled',
      );
      expect(runs).toBe(0);
      expect((await ledger.list()).records[0]).toMatchObject({
        outcome: 'FAILED_BEFORE_EFFECT',
        boundary: 'not_crossed',
      });

      expect(await reserve({}, { toolCallId: id })).toBe(1);
      expect((await ledger.list()).records[0]).toMatchObject({
        outcome: 'COMPLETED',
        boundary: 'crossed',
        attempts: 2,
      });
    } finally {
      await cleanup();
    }
  });

  it('a durable operation costs two writes on its first attempt and none on its replay', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const { storage: counting, writes } = counted(storage);
      const ledger = ledgerOn(counting);
      const operation = { id: `wf-${randomUUID()}#1`, scope: { runId: 'wf' } };

      expect(await runDurableOperation(ledger, SPEC, operation, () => ({ chargeId: 1 }))).toEqual({ chargeId: 1 });
      expect(writes).toEqual({ create: 1, update: 1 });
      expect(await runDurableOperation(ledger, SPEC, operation, () => ({ chargeId: 2 }))).toEqual({ chargeId: 1 });
      expect(writes).toEqual({ create: 2, update: 1 });
    } finally {
      await cleanup();
    }
  });
});

describe("boundary: 'body' arguments", () => {
  it('refuses a boundary that is neither marked nor body, naming it', () => {
    const ledger = ledgerOn(createMemoryStorage());

    expect(() => ledger.tool({ ...SPEC, boundary: 'before' as never }, () => 1)).toThrow(
      expect.objectContaining({ code: 'invalid_spec', message: expect.stringContaining('`before`') }),
    );
  });
});
