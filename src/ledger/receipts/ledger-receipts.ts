/**
 * The ledger's side of receipts: emit the receipt a record owes, write its ref, receipt a refusal,
 * and sweep the store for receipts lost to a crash.
 *
 * A crash between a terminal write and its receipt, and the sweep that repairs it:
 *
 *   worker: complete (v5, ref `pending:outcome:5`) ─► dies
 *   sweep:  lists the record ─► owes receipt id(key, 5, outcome) ─► appends it ─► CAS ref (v5 → v6)
 *
 *   worker: complete (v5) ─► appends the receipt ─► dies before its ref
 *   sweep:  owes the same id ─► the sink answers `duplicate` ─► CAS ref (v5 → v6); nothing appended
 *
 * Nothing here ever throws into a call: failures go to the logger and the marker stays for a sweep.
 */
import { GuardError } from '../../errors.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { ReceiptDraft } from '../../storage/receipt.js';
import type { ExecutorContext } from '../executor-context.js';
import { toRecordedError } from '../stored-result.js';
import type { LedgerEvent, SweepReceiptsOptions, SweepReceiptsReport } from '../types.js';
import type { ReceiptWriter, WriteResult } from './receipt-writer.js';
import { blockedDraft, draftFor, pendingReceiptRef, type RecordEvent, receiptOwedBy } from './record-receipts.js';

/** The `receiptRef` a receipt-worthy write stores: a pending marker when receipts are on, else null. */
export function receiptRefFor(ctx: ExecutorContext, event: RecordEvent, version: number): string | null {
  return ctx.receipts === undefined ? null : pendingReceiptRef(event, version);
}

/** Call the `onEvent` hook; a throwing hook is reported and ignored. */
export function notify(ctx: ExecutorContext, event: LedgerEvent): void {
  if (ctx.onEvent === undefined) return;
  try {
    ctx.onEvent(event);
  } catch (error) {
    ctx.logger?.warn?.('The onEvent hook threw', { type: event.type, error: toRecordedError(error) });
  }
}

/** Put `draft`, the receipt of `record`, on the chain and report it with `receipt_written`. */
async function writeReceipt(
  ctx: ExecutorContext,
  writer: ReceiptWriter,
  draft: ReceiptDraft,
  record: TransitionRecord,
): Promise<WriteResult> {
  const written = await writer.write(draft);
  notify(ctx, {
    type: 'receipt_written',
    receiptId: draft.receiptId,
    receipt: written.status === 'appended' ? written.receipt : null,
    record,
  });
  return written;
}

/** What settling one record did. */
type Settled = 'none' | 'appended' | 'duplicate' | 'failed';

/**
 * Emit the receipt `record` owes (if any) and, with `writeRef`, swap its pending marker for the
 * receipt id by a compare-and-set that leaves `updatedAt` alone (a bookkeeping write).
 */
export async function settleReceipt(
  ctx: ExecutorContext,
  record: TransitionRecord,
  writeRef: boolean,
): Promise<{ readonly settled: Settled; readonly record: TransitionRecord | null }> {
  const writer = ctx.receipts;
  let debt: ReturnType<typeof receiptOwedBy>;
  try {
    debt = writer === undefined ? null : receiptOwedBy(record);
  } catch (error) {
    ctx.logger?.error?.('Receipt could not be written: the record cannot be read', {
      key: record.key,
      error: toRecordedError(error),
    });
    return { settled: 'failed', record: null };
  }
  if (writer === undefined || debt === null) return { settled: 'none', record: null };
  let settled: Settled;
  try {
    // Built inside the try: a record the draft cannot describe is a receipt failure, not a call failure.
    const draft = draftFor(record, debt);
    if (draft === null) return { settled: 'none', record: null };
    settled = (await writeReceipt(ctx, writer, draft, record)).status;
  } catch (error) {
    ctx.logger?.error?.('Receipt could not be written; `sweepReceipts` will retry it', {
      key: record.key,
      receiptId: debt.receiptId,
      error: toRecordedError(error),
    });
    return { settled: 'failed', record: null };
  }
  if (!writeRef) return { settled, record: null };
  try {
    const next: TransitionRecord = { ...record, receiptRef: debt.receiptId, version: record.version + 1 };
    const refWritten = await ctx.storage.update(record.key, record.version, next);
    // A lost compare-and-set means the record moved on (a takeover, a sweep in another process):
    // the receipt is on the chain either way, and a record that still owes it is found by the sweep.
    if (!refWritten) ctx.logger?.debug?.('Receipt ref not written: the record changed', { key: record.key });
    return { settled, record: refWritten ? next : null };
  } catch (error) {
    ctx.logger?.warn?.('Receipt ref could not be written; `sweepReceipts` will write it', {
      key: record.key,
      receiptId: debt.receiptId,
      error: toRecordedError(error),
    });
    return { settled, record: null };
  }
}

/**
 * After a receipt-worthy write landed: report it, emit its receipt, write the ref. Returns the
 * record as stored now (with its ref when that was written). Never throws.
 */
export function afterRecorded(
  ctx: ExecutorContext,
  record: TransitionRecord,
): Promise<TransitionRecord> | TransitionRecord {
  notify(ctx, { type: 'transition_recorded', record });
  // Without receipts there is nothing to settle: no promise on the hot path.
  if (ctx.receipts === undefined) return record;
  return settleReceipt(ctx, record, true).then((settled) => settled.record ?? record);
}

/**
 * Before a write replaces `record` (a takeover, a release), emit the receipt it still owes, so the
 * event it recorded is not lost with its marker. No ref is written: the replacing write follows.
 */
export async function settleBeforeReplacing(ctx: ExecutorContext, record: TransitionRecord): Promise<void> {
  if (ctx.receipts !== undefined) await settleReceipt(ctx, record, false);
}

/**
 * Receipt a refusal: the ledger raised a hard block on `record`. One receipt per record version, so
 * a model retrying a blocked call does not grow the chain. Never throws.
 */
export async function receiptBlocked(ctx: ExecutorContext, record: TransitionRecord, error: unknown): Promise<void> {
  const writer = ctx.receipts;
  if (writer === undefined) return;
  try {
    const draft = blockedDraft(record, toRecordedError(error), ctx.clock.now());
    await writeReceipt(ctx, writer, draft, record);
  } catch (writeError) {
    ctx.logger?.error?.('Receipt of a hard block could not be written', {
      key: record.key,
      error: toRecordedError(writeError),
    });
  }
}

/** Page through the store and settle every record that owes a receipt. */
export async function sweepReceipts(
  ctx: ExecutorContext,
  options: SweepReceiptsOptions = {},
): Promise<SweepReceiptsReport> {
  if (ctx.receipts === undefined) {
    throw new GuardError('receipts_not_configured', 'sweepReceipts needs a ledger created with `receipts`');
  }
  const pageSize = options.pageSize ?? 500;
  const report = { scanned: 0, owed: 0, appended: 0, duplicates: 0, refsWritten: 0, failed: 0 };
  let cursor: string | null = null;
  do {
    // Ref writes keep `updatedAt`, so records keep their list positions and the cursor stays valid.
    const page: Awaited<ReturnType<typeof ctx.storage.list>> = await ctx.storage.list({
      limit: pageSize,
      ...(options.updatedFrom === undefined ? {} : { updatedFrom: options.updatedFrom }),
      ...(cursor === null ? {} : { cursor }),
    });
    for (const record of page.records) {
      report.scanned++;
      const { settled, record: withRef } = await settleReceipt(ctx, record, true);
      if (settled === 'none') continue;
      report.owed++;
      if (settled === 'appended') report.appended++;
      else if (settled === 'duplicate') report.duplicates++;
      else if (settled === 'failed') report.failed++;
      if (withRef !== null) report.refsWritten++;
    }
    cursor = page.nextCursor;
  } while (cursor !== null);
  return report;
}
