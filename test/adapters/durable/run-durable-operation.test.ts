/**
 * The engine-neutral core on every store: the attempts of one engine operation (a retry, two live
 * attempts, a replay) run the body once; an attempt that failed after its boundary is a final hard
 * block; `boundary: 'marked'` leaves the boundary to the body.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { isFinalDurableError, runDurableOperation } from '../../../src/adapters/dbos.js';
import { createMemoryStorage, InvalidArgumentError, LedgerHardBlockError, sideEffect } from '../../../src/index.js';
import { everyStore, ledgerOn } from '../../helpers/every-store.js';

const stores = await everyStore();
const SPEC = { name: 'charge', sideEffectClass: 'payment' } as const;

function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

describe.each(stores)('runDurableOperation on %s', (_name, backend) => {
  afterAll(() => backend.dispose());

  it('runs the body once for every attempt of one operation, and gives it the operation id', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const operation = { id: `wf-${randomUUID()}#1`, scope: { runId: 'wf' } };
      const keys: string[] = [];
      const body = async ({ operationId }: { operationId: string }) => {
        keys.push(operationId);
        return { chargeId: keys.length };
      };

      const first = await runDurableOperation(ledger, SPEC, operation, body);
      const retried = await runDurableOperation(ledger, SPEC, operation, body);
      const other = await runDurableOperation(ledger, SPEC, { ...operation, id: `${operation.id}0` }, body);

      expect(first).toEqual({ chargeId: 1 });
      expect(retried).toEqual({ chargeId: 1 });
      expect(other).toEqual({ chargeId: 2 });
      expect(keys).toEqual([operation.id, `${operation.id}0`]);
    } finally {
      await cleanup();
    }
  });

  it('two live attempts: one runs the body, the other waits and gets its result', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const operation = { id: `wf-${randomUUID()}#1` };
      let runs = 0;
      let finish: () => void = () => {};
      const gate = new Promise<void>((resolve) => {
        finish = resolve;
      });
      let entered: () => void = () => {};
      const inBody = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const body = async () => {
        runs++;
        entered();
        await gate;
        return { chargeId: runs };
      };

      const first = runDurableOperation(ledger, SPEC, operation, body);
      await inBody;
      const second = runDurableOperation(ledger, SPEC, operation, body);
      finish();

      expect(await Promise.all([first, second])).toEqual([{ chargeId: 1 }, { chargeId: 1 }]);
      expect(runs).toBe(1);
    } finally {
      await cleanup();
    }
  });

  it('a body that threw after its boundary is a final hard block for the next attempt', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const operation = { id: `wf-${randomUUID()}#1` };
      let charges = 0;
      const body = async () => {
        charges++;
        throw new Error('The receipt could not be parsed');
      };

      const first = await rejectionOf(runDurableOperation(ledger, SPEC, operation, body));
      const retried = await rejectionOf(runDurableOperation(ledger, SPEC, operation, body));

      expect(first).toMatchObject({ message: 'The receipt could not be parsed' });
      expect(isFinalDurableError(first)).toBe(false);
      expect(retried).toBeInstanceOf(LedgerHardBlockError);
      expect(isFinalDurableError(retried)).toBe(true);
      expect(charges).toBe(1);
    } finally {
      await cleanup();
    }
  });

  it('an attempt that died mid-effect is reconciled by its operation id on the retry, and never run again', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      // The provider: charges by idempotency key.
      const provider = new Map<string, { chargeId: number }>();
      const charge = ({ operationId }: { operationId: string }) => {
        const receipt = { chargeId: provider.size + 1 };
        provider.set(operationId, receipt);
        return receipt;
      };
      const reconciled = {
        ...SPEC,
        reconciler: ({ externalOperationRef }: { externalOperationRef: string }) => {
          const found = provider.get(externalOperationRef);
          return found === undefined
            ? { status: 'NOT_EXECUTED' as const }
            : { status: 'COMPLETED' as const, result: found };
        },
      };
      const killed = ledgerOn(storage);
      const charged = { id: `wf-${randomUUID()}#1` };
      const never = { id: `wf-${randomUUID()}#2` };
      // Each first attempt dies inside its body (one after the charge, one before it) and never returns.
      let entered = 0;
      const dying = (charges: boolean) => (context: { operationId: string }) => {
        entered++;
        if (charges) charge(context);
        return new Promise<never>(() => {});
      };
      void runDurableOperation(killed, SPEC, charged, dying(true));
      void runDurableOperation(killed, SPEC, never, dying(false));
      while (entered < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      const records = (await killed.list({ limit: 500 })).records.filter(
        (record) => record.ticket === charged.id || record.ticket === never.id,
      );
      expect(records.map((record) => record.externalOperationRef).sort()).toEqual([charged.id, never.id].sort());
      for (const record of records) {
        await killed.markWorkerDead(record.key, {
          by: 'test',
          reason: 'the worker was killed',
          overrideHeartbeat: true,
        });
      }

      const retry = ledgerOn(storage);
      let runs = 0;
      const body = (context: { operationId: string }) => {
        runs++;
        return charge(context);
      };

      expect(await runDurableOperation(retry, reconciled, charged, body)).toEqual({ chargeId: 1 });
      expect(runs).toBe(0);
      expect(await runDurableOperation(retry, reconciled, never, body)).toEqual({ chargeId: 2 });
      expect(runs).toBe(1);
      expect([...provider.keys()].sort()).toEqual([charged.id, never.id].sort());
      expect(await runDurableOperation(retry, reconciled, charged, body)).toEqual({ chargeId: 1 });
      expect(runs).toBe(1);
    } finally {
      await cleanup();
    }
  });

  it("`boundary: 'marked'`: a body that failed before its own sideEffect() is run again", async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const ledger = ledgerOn(storage);
      const operation = { id: `wf-${randomUUID()}#1` };
      let attempts = 0;
      let charges = 0;
      const body = async () => {
        attempts++;
        if (attempts === 1) throw new Error('The provider refused the connection');
        return sideEffect(() => ++charges);
      };
      const reversible = { name: 'reserve', sideEffectClass: 'idempotent_mutate' } as const;

      await rejectionOf(runDurableOperation(ledger, reversible, operation, body, { boundary: 'marked' }));
      const retried = await runDurableOperation(ledger, reversible, operation, body, { boundary: 'marked' });

      expect(retried).toBe(1);
      expect(attempts).toBe(2);
    } finally {
      await cleanup();
    }
  });
});

describe('runDurableOperation arguments', () => {
  it('refuses an operation without an id before anything is claimed', async () => {
    const ledger = ledgerOn(createMemoryStorage());

    await expect(runDurableOperation(ledger, SPEC, { id: '' }, () => 1)).rejects.toMatchObject({
      code: 'invalid_operation',
    });
    await expect(runDurableOperation(null as never, SPEC, { id: 'a' }, () => 1)).rejects.toBeInstanceOf(
      InvalidArgumentError,
    );
    expect(await ledger.list()).toMatchObject({ records: [] });
  });
});
