/**
 * Signed, hash-chained receipts: the public surface (re-exports only).
 *
 * Wiring, as configuration does it:
 *
 *   const signer = createReceiptSigner({ algorithm: 'hmac-sha256', key: process.env.KEY ?? '', keyId: 'k1' });
 *   const sink = createJsonlReceiptSink({ path: '.hyphae/receipts.jsonl' });
 *   const ledger = createLedger({ storage, agentId, policyVersion, receipts: { sink, signer } });
 *   await ledger.sweepReceipts(); // at start-up: receipts lost to a crash
 *
 * SQL sinks live with their drivers: `createSqliteReceiptSink` in `hyphae/sqlite`,
 * `createPostgresReceiptSink` in `hyphae/postgres`.
 */

export { ReceiptKeyError, ReceiptSinkCorruptError, ReceiptSinkUnavailableError } from '../../errors.js';
export {
  createJsonlReceiptSink,
  type JsonlReceiptSink,
  type JsonlReceiptSinkOptions,
} from '../../storage/jsonl/jsonl-sink.js';
export { createMemoryReceiptSink, type MemoryReceiptSink } from '../../storage/memory-receipt-sink.js';
export {
  type ChainHead,
  headOf,
  isReceipt,
  RECEIPT_SCHEMA,
  type Receipt,
  ReceiptActionKind,
  type ReceiptDraft,
  type ReceiptError,
  type ReceiptEvent,
  type ReceiptOperator,
  ReceiptOutcome,
  receiptHash,
  receiptIdOf,
  receiptShapeProblem,
  signingPayload,
  type UnsignedReceipt,
} from '../../storage/receipt.js';
export type { AppendResult, ReceiptSink } from '../../storage/receipt-sink.js';
export {
  createReceiptWriter,
  type ReceiptWriter,
  type ReceiptWriterOptions,
  sealReceipt,
  type WriteResult,
} from './receipt-writer.js';
export {
  isPendingReceiptRef,
  type OwedReceipt,
  owedReceipt,
  pendingReceiptRef,
  type RecordEvent,
  TERMINAL_OUTCOMES,
} from './record-receipts.js';
export {
  createEd25519Signer,
  createEd25519Verifier,
  createHmacSigner,
  createHmacVerifier,
  createReceiptSigner,
  type KeyInput,
  MIN_HMAC_KEY_BYTES,
  ReceiptAlgorithm,
  type ReceiptKey,
  type ReceiptKeyObject,
  type ReceiptKeySettings,
  type ReceiptSigner,
} from './signers.js';
export {
  type BrokenLink,
  BrokenReason,
  type ReceiptAnchor,
  type ReceiptSource,
  type VerifyProgress,
  type VerifyReceiptsOptions,
  type VerifyReceiptsResult,
  verifyReceipts,
} from './verify-receipts.js';
