import { describe, expect, it } from 'vitest';
import { createManualClock, GuardError, LedgerFencedError, LedgerHardBlockError, sideEffect } from '../../src/index.js';
import { deferred, newLedger, onlyRecord, until } from './ledger-helpers.js';

interface Invoice {
  readonly invoiceId: string;
  readonly note?: string;
}

describe('tasks', () => {
  function invoiceTask(options: Parameters<typeof newLedger>[0] = {}) {
    const ledger = newLedger(options);
    const processed: Invoice[] = [];
    const processInvoice = ledger.task({ name: 'process_invoice', idFrom: ['invoiceId'] }, (args: Invoice) => {
      processed.push(args);
      return { processed: args.invoiceId, run: processed.length };
    });
    return { ledger, processed, processInvoice };
  }

  it('idFrom: the same invoiceId with different other arguments runs once', async () => {
    const { processed, processInvoice } = invoiceTask();

    const first = await processInvoice({ invoiceId: 'inv_1', note: 'first' });
    const second = await processInvoice({ invoiceId: 'inv_1', note: 'second' });

    expect(processed).toEqual([{ invoiceId: 'inv_1', note: 'first' }]);
    expect(second).toEqual(first);
  });

  it('idFrom: a different invoiceId is another task', async () => {
    const { processed, processInvoice } = invoiceTask();

    await processInvoice({ invoiceId: 'inv_1' });
    await processInvoice({ invoiceId: 'inv_2' });

    expect(processed.map((p) => p.invoiceId)).toEqual(['inv_1', 'inv_2']);
  });

  it('idFrom: a missing id field is refused before anything runs', async () => {
    const { ledger, processed, processInvoice } = invoiceTask();

    await expect(processInvoice({ note: 'no id' } as unknown as Invoice)).rejects.toBeInstanceOf(GuardError);
    expect(processed).toEqual([]);
    expect((await ledger.list()).records).toHaveLength(0);
  });

  it('an explicit taskId identifies the task whatever the arguments', async () => {
    const ledger = newLedger();
    let runs = 0;
    const nightly = ledger.task({ name: 'nightly_export' }, (args: { format: string }) => {
      runs++;
      return args.format;
    });

    const a = await nightly({ format: 'csv' }, { taskId: '2026-07-01' });
    const b = await nightly({ format: 'json' }, { taskId: '2026-07-01' });
    const c = await nightly({ format: 'json' }, { taskId: '2026-07-02' });

    expect([a, b, c]).toEqual(['csv', 'csv', 'json']);
    expect(runs).toBe(2);
  });

  it('without taskId or idFrom, the arguments (in any key order) identify the task', async () => {
    const ledger = newLedger();
    let runs = 0;
    const resize = ledger.task({ name: 'resize' }, () => ++runs);

    await resize({ w: 10, h: 20 });
    await resize({ h: 20, w: 10 });
    await resize({ w: 11, h: 20 });

    expect(runs).toBe(2);
  });

  it('a task record has kind `task` and never shares a key with a tool of the same name', async () => {
    const ledger = newLedger();
    const asTask = ledger.task({ name: 'resize', sideEffectClass: 'idempotent_mutate' }, () => 'task');
    const asTool = ledger.tool({ name: 'resize', sideEffectClass: 'idempotent_mutate' }, () => 'tool');

    await expect(asTask({ w: 1 })).resolves.toBe('task');
    await expect(asTool({ w: 1 })).resolves.toBe('tool');
    const kinds = (await ledger.list()).records.map((r) => r.kind).sort();

    expect(kinds).toEqual(['task', 'tool']);
  });

  it('a crashed task (IN_FLIGHT, lease expired, not crossed) is reclaimed; the stale worker is fenced', async () => {
    const clock = createManualClock(50_000);
    const ledger = newLedger({ clock, leaseTtlMs: 1_000, leaseRenewIntervalMs: 1e9 });
    const stuck = deferred();
    let runs = 0;
    const processInvoice = ledger.task({ name: 'process_invoice', idFrom: ['invoiceId'] }, async (args: Invoice) => {
      runs++;
      if (runs === 1) await stuck.promise;
      return `done ${args.invoiceId} by run ${runs}`;
    });
    const crashed = processInvoice({ invoiceId: 'inv_1' });
    await until(() => runs === 1);

    clock.advance(1_000);
    const result = await processInvoice({ invoiceId: 'inv_1' });
    stuck.resolve();

    expect(result).toBe('done inv_1 by run 2');
    await expect(crashed).rejects.toBeInstanceOf(LedgerFencedError);
    expect(await onlyRecord(ledger)).toMatchObject({ kind: 'task', outcome: 'COMPLETED', fence: 2, attempts: 2 });
  });

  it('a crashed task that may have crossed its boundary hard-blocks instead', async () => {
    const clock = createManualClock(50_000);
    const ledger = newLedger({ clock, leaseTtlMs: 1_000, leaseRenewIntervalMs: 1e9 });
    let runs = 0;
    let calling = false;
    const settle = ledger.task({ name: 'settle', idFrom: ['invoiceId'] }, (_args: Invoice) => {
      runs++;
      return sideEffect(() => {
        calling = true; // maybe_crossed is durable by now; the worker then dies mid-call
        return new Promise<never>(() => undefined);
      });
    });
    void settle({ invoiceId: 'inv_1' });
    await until(() => calling);

    clock.advance(1_000);

    await expect(settle({ invoiceId: 'inv_1' })).rejects.toBeInstanceOf(LedgerHardBlockError);
    expect(runs).toBe(1);
  });
});

describe('ledger.run scopes', () => {
  function counter() {
    const ledger = newLedger();
    const state = { runs: 0 };
    const lookup = ledger.tool({ name: 'lookup', sideEffectClass: 'read' }, (_args: { q: string }) => ++state.runs);
    return { ledger, state, lookup };
  }

  it('the same arguments in two runs are two transitions', async () => {
    const { ledger, state, lookup } = counter();

    await ledger.run({ threadId: 't', runId: 'r1' }, () => lookup({ q: 'x' }));
    await ledger.run({ threadId: 't', runId: 'r2' }, () => lookup({ q: 'x' }));

    expect(state.runs).toBe(2);
    expect((await ledger.list()).records).toHaveLength(2);
  });

  it('the same arguments twice in one run are one transition', async () => {
    const { ledger, state, lookup } = counter();

    const a = await ledger.run({ threadId: 't', runId: 'r1' }, () => lookup({ q: 'x' }));
    const b = await ledger.run({ threadId: 't', runId: 'r1' }, () => lookup({ q: 'x' }));

    expect([a, b]).toEqual([1, 1]);
    expect(state.runs).toBe(1);
  });

  it('records the scope, merging nested runs', async () => {
    const { ledger, lookup } = counter();

    await ledger.run({ threadId: 't' }, () => ledger.run({ runId: 'r', node: 'n' }, () => lookup({ q: 'x' })));

    expect((await onlyRecord(ledger)).scope).toEqual({ threadId: 't', runId: 'r', node: 'n' });
  });

  it('a dispatch id set by run identifies the call', async () => {
    const { ledger, state, lookup } = counter();

    await ledger.run({ runId: 'r', dispatchId: 'd1' }, () => lookup({ q: 'x' }));
    await ledger.run({ runId: 'r', dispatchId: 'd1' }, () => lookup({ q: 'x' }));
    await ledger.run({ runId: 'r', dispatchId: 'd2' }, () => lookup({ q: 'x' }));

    expect(state.runs).toBe(2);
    expect((await ledger.list()).records.map((r) => r.ticket).sort()).toEqual(['d1', 'd2']);
  });

  it('an explicit call scope wins over the run scope', async () => {
    const { ledger, lookup } = counter();

    await ledger.run({ threadId: 't', runId: 'r' }, () => lookup({ q: 'x' }, { scope: { threadId: 'other' } }));

    expect((await onlyRecord(ledger)).scope).toEqual({ threadId: 'other' });
  });
});
