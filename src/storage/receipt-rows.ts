/**
 * Shared by the SQL receipt sinks: a receipt row is `seq`, `hash` and the canonical `doc`.
 */
import { fingerprint } from '../core/fingerprint.js';
import { ReceiptSinkCorruptError } from '../errors.js';
import { type Receipt, receiptShapeProblem } from './receipt.js';

/**
 * The receipt stored in a row; a row whose document is not a receipt, or disagrees with the row's
 * `seq` or `hash`, fails closed.
 *
 * @param location names the sink in the error (`sqlite:/path/ledger.db`); the seq is appended.
 */
export function decodeReceiptRow(row: unknown, location: string): Receipt {
  const { seq, hash, doc } = (row ?? {}) as { seq?: unknown; hash?: unknown; doc?: unknown };
  const where = `${location}#${String(seq)}`;
  let value: unknown;
  try {
    value = JSON.parse(String(doc));
  } catch (cause) {
    throw new ReceiptSinkCorruptError(where, 'the stored receipt is not JSON', { cause });
  }
  const problem = receiptShapeProblem(value);
  if (problem !== null) throw new ReceiptSinkCorruptError(where, `the stored receipt is not a receipt: ${problem}`);
  const receipt = value as Receipt;
  if (receipt.seq !== Number(seq) || fingerprint(receipt) !== hash) {
    throw new ReceiptSinkCorruptError(where, 'the stored receipt does not match its row');
  }
  return receipt;
}
