import { describe, expect, it } from 'vitest';
import { owedReceipt, pendingReceiptRef } from '../../../src/ledger/receipts/record-receipts.js';
import { receiptIdOf } from '../../../src/storage/receipt.js';
import { makeTestRecord } from '../../../src/testing/storage-conformance.js';

describe('owedReceipt', () => {
  it('a terminal record without a ref owes its outcome receipt at its own version', () => {
    const record = makeTestRecord({ outcome: 'UNKNOWN', version: 4, receiptRef: null });

    expect(owedReceipt(record)).toEqual({
      event: 'outcome',
      version: 4,
      receiptId: receiptIdOf(record.key, 4, 'outcome'),
    });
  });

  it('an in-flight record without a ref owes nothing; a record whose ref is a receipt id owes nothing', () => {
    expect(owedReceipt(makeTestRecord({ outcome: 'IN_FLIGHT', receiptRef: null }))).toBeNull();
    expect(owedReceipt(makeTestRecord({ outcome: 'COMPLETED', receiptRef: 'a'.repeat(64) }))).toBeNull();
  });

  it('a pending marker names the event and the version of the write that made it', () => {
    const record = makeTestRecord({
      outcome: 'IN_FLIGHT',
      version: 9,
      receiptRef: pendingReceiptRef('mark_worker_dead', 7),
    });

    expect(owedReceipt(record)).toEqual({
      event: 'mark_worker_dead',
      version: 7,
      receiptId: receiptIdOf(record.key, 7, 'mark_worker_dead'),
    });
  });

  it('a marker this version cannot read still owes the outcome of a terminal record', () => {
    const terminal = makeTestRecord({ outcome: 'COMPLETED', version: 3, receiptRef: 'pending:future-event:x' });
    const inFlight = makeTestRecord({ outcome: 'IN_FLIGHT', receiptRef: 'pending:future-event:x' });

    expect(owedReceipt(terminal)).toMatchObject({ event: 'outcome', version: 3 });
    expect(owedReceipt(inFlight)).toBeNull();
  });

  it('receipt ids differ by key, version and event', () => {
    const ids = new Set([
      receiptIdOf('k', 1, 'outcome'),
      receiptIdOf('k', 2, 'outcome'),
      receiptIdOf('k', 1, 'blocked'),
      receiptIdOf('j', 1, 'outcome'),
    ]);

    expect(ids.size).toBe(4);
  });
});
