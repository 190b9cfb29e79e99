/**
 * The sweep: receipts lost between a terminal write and the chain are written later, never twice.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStorage, type LedgerStorage } from '../../../src/index.js';
import { isPendingReceiptRef } from '../../../src/ledger/receipts/record-receipts.js';
import { createMemoryReceiptSink } from '../../../src/storage/memory-receipt-sink.js';
import { instrumentedStorage, newLedger, onlyRecord, rejectionOf } from '../ledger-helpers.js';
import { emailTool, flakySink, receiptLedger } from './ledger-fixture.js';

describe('sweepReceipts', () => {
  it('writes the receipt a failed append left owed, and its ref; a second sweep finds nothing', async () => {
    const sink = flakySink();
    const { ledger, chain } = receiptLedger({ sink });
    const { send } = emailTool(ledger);
    sink.failing = true;
    await send({ to: 'a@x' }, { toolCallId: 'c' });
    sink.failing = false;

    const first = await ledger.sweepReceipts();
    const second = await ledger.sweepReceipts();

    expect(first).toEqual({ scanned: 1, owed: 1, appended: 1, duplicates: 0, refsWritten: 1, failed: 0 });
    expect(second).toEqual({ scanned: 1, owed: 0, appended: 0, duplicates: 0, refsWritten: 0, failed: 0 });
    const [receipt] = await chain();
    expect((await onlyRecord(ledger)).receiptRef).toBe(receipt?.receiptId);
  });

  it('a receipt appended whose ref was lost is recognised by its id: ref written, nothing appended', async () => {
    const storage = instrumentedStorage();
    let dying = true;
    const { ledger, chain } = receiptLedger({
      storage,
      onEvent: (event) => {
        // The process "dies" between the append and the ref write: the ref write fails.
        if (event.type === 'receipt_written' && dying) storage.fail('update', new Error('connection reset'));
      },
    });
    await emailTool(ledger).send({ to: 'a@x' }, { toolCallId: 'c' });
    storage.fail('update', null);
    dying = false;
    expect(isPendingReceiptRef((await onlyRecord(ledger)).receiptRef)).toBe(true);

    const report = await ledger.sweepReceipts();

    expect(report).toMatchObject({ owed: 1, appended: 0, duplicates: 1, refsWritten: 1 });
    expect(await chain()).toHaveLength(1);
  });

  it('backfills records written before receipts were turned on; in-flight records owe nothing', async () => {
    const storage = createMemoryStorage();
    const plain = newLedger({ storage });
    const { plan, send } = emailTool(plain);
    plan.push('ok', 'before', 'inside');
    await send({ to: 'a@x' }, { toolCallId: 'c1' });
    await rejectionOf(send({ to: 'b@x' }, { toolCallId: 'c2' }));
    await rejectionOf(send({ to: 'c@x' }, { toolCallId: 'c3' }));
    const hang = plain.tool({ name: 'hang', sideEffectClass: 'email' }, () => new Promise<never>(() => {}));
    void hang({}, { toolCallId: 'c4' });
    await new Promise((resolve) => setTimeout(resolve, 10));

    const { ledger, chain } = receiptLedger({ storage: unclosable(storage) });
    const report = await ledger.sweepReceipts({ pageSize: 2 });

    expect(report).toEqual({ scanned: 4, owed: 3, appended: 3, duplicates: 0, refsWritten: 3, failed: 0 });
    expect((await chain()).map((receipt) => receipt.outcome).sort()).toEqual([
      'COMPLETED',
      'FAILED_BEFORE_EFFECT',
      'UNKNOWN',
    ]);
  });

  it('two sweeps racing on one store and one sink append each receipt once', async () => {
    const storage = createMemoryStorage();
    const plain = newLedger({ storage });
    const { send } = emailTool(plain);
    for (let n = 0; n < 20; n++) await send({ to: `${n}@x` }, { toolCallId: `c${n}` });
    const sink = flakySink(createMemoryReceiptSink());
    const a = receiptLedger({ storage, sink });
    const b = receiptLedger({ storage, sink });

    const [ra, rb] = await Promise.all([
      a.ledger.sweepReceipts({ pageSize: 3 }),
      b.ledger.sweepReceipts({ pageSize: 3 }),
    ]);

    expect(ra.appended + rb.appended).toBe(20);
    expect(await a.chain()).toHaveLength(20);
    expect(await b.ledger.sweepReceipts()).toMatchObject({ owed: 0 });
  });

  it('a failing sink is counted and left for the next sweep', async () => {
    const sink = flakySink();
    const { ledger } = receiptLedger({ sink });
    sink.failing = true;
    await emailTool(ledger).send({ to: 'a@x' }, { toolCallId: 'c' });

    expect(await ledger.sweepReceipts()).toMatchObject({ owed: 1, failed: 1, refsWritten: 0 });
    sink.failing = false;
    expect(await ledger.sweepReceipts()).toMatchObject({ owed: 1, appended: 1, refsWritten: 1 });
  });
});

describe('a record replaced before its receipt was written', () => {
  it('a retry taking over a failed attempt first writes the failure’s receipt', async () => {
    const sink = flakySink();
    const { ledger, chain } = receiptLedger({ sink });
    let runs = 0;
    const fetchFeed = ledger.tool({ name: 'sync_feed', sideEffectClass: 'idempotent_mutate' }, async () => {
      runs++;
      if (runs === 1) throw new Error('feed offline');
      return 'synced';
    });
    sink.failing = true;
    await expect(fetchFeed({}, { toolCallId: 'c' })).rejects.toThrow('feed offline');
    sink.failing = false;

    await fetchFeed({}, { toolCallId: 'c' });

    expect((await chain()).map((receipt) => receipt.outcome)).toEqual(['FAILED_BEFORE_EFFECT', 'COMPLETED']);
    expect(await ledger.sweepReceipts()).toMatchObject({ owed: 0 });
  });

  it('a release of a record whose UNKNOWN receipt is owed writes that receipt first', async () => {
    const sink = flakySink();
    const { ledger, chain } = receiptLedger({ sink });
    const { plan, send } = emailTool(ledger);
    plan.push('inside');
    sink.failing = true;
    await rejectionOf(send({ to: 'a@x' }, { toolCallId: 'c' }));
    sink.failing = false;
    const { key } = await onlyRecord(ledger);

    await ledger.release(key, { verified: 'not_executed', by: 'ops', reason: 'checked' });

    expect((await chain()).map((receipt) => `${receipt.actionKind}:${receipt.outcome}`)).toEqual([
      'tool:UNKNOWN',
      'release:NOT_EXECUTED',
    ]);
  });
});

/** A storage whose close() does nothing, for a second ledger over a store another ledger owns. */
function unclosable(storage: LedgerStorage): LedgerStorage {
  return { ...storage, close: async () => {} };
}
