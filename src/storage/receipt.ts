/**
 * The receipt: a signed, hash-chained statement that one transition reached an outcome.
 *
 * A receipt is signed over the RFC 8785 canonical JSON of every field but `signature`, and chained
 * by `prev`: the SHA-256 hex of the previous receipt's canonical JSON, signature included.
 */
import { canonicalJson } from '../core/canonical-json.js';
import { fingerprint } from '../core/fingerprint.js';
import { isTermOf, type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';
import { checkOptions, unreadableArgument } from '../invalid-argument.js';

/** The `schema` of every receipt this version writes; part of the signed payload. */
export const RECEIPT_SCHEMA = 'hyphae.receipt/v1' as const;

const RECEIPT_OUTCOMES = [
  'COMPLETED',
  'FAILED_BEFORE_EFFECT',
  'FAILED_AFTER_EFFECT',
  'UNKNOWN',
  'BLOCKED',
  'NOT_EXECUTED',
  'EXPIRED',
] as const;
/**
 * What a receipt attests.
 *
 * The ledger outcomes (`COMPLETED`, `FAILED_BEFORE_EFFECT`, `FAILED_AFTER_EFFECT`, `UNKNOWN`) for a
 * terminal write; `BLOCKED` for a call the ledger refused; the release verdict (`COMPLETED` or
 * `NOT_EXECUTED`) for an operator release; `EXPIRED` for a worker marked dead.
 */
export const ReceiptOutcome: Vocabulary<typeof RECEIPT_OUTCOMES> = vocabulary(RECEIPT_OUTCOMES);
/** What a receipt attests. */
export type ReceiptOutcome = ValueOf<typeof ReceiptOutcome>;

const RECEIPT_ACTION_KINDS = ['tool', 'task', 'denial', 'release', 'mark_worker_dead'] as const;
/** Who acted: a tool or task run by the ledger, a call its checks refused (`denial`), or an operator action. */
export const ReceiptActionKind: Vocabulary<typeof RECEIPT_ACTION_KINDS> = vocabulary(RECEIPT_ACTION_KINDS);
/** Who acted. */
export type ReceiptActionKind = ValueOf<typeof ReceiptActionKind>;

/** The error a receipt records (never a stack). */
export interface ReceiptError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

/** The operator behind a release receipt. */
export interface ReceiptOperator {
  readonly by: string;
  readonly reason: string;
}

/** A receipt before it is placed on the chain: everything the ledger knows about the event. */
export interface ReceiptDraft {
  /** Deterministic from (transition key, record version, event): the same event never gets two receipts. */
  readonly receiptId: string;
  readonly agentId: string;
  /** The tool or task name. */
  readonly action: string;
  readonly actionKind: ReceiptActionKind;
  readonly transitionKey: string;
  readonly outcome: ReceiptOutcome;
  /** The record's args fingerprint; raw arguments never appear in a receipt. */
  readonly inputsHash: string;
  /** SHA-256 of the stored result's canonical JSON, or null when there is none. */
  readonly outputsHash: string | null;
  /** When the event happened (ISO 8601, from the ledger's clock). */
  readonly timestamp: string;
  readonly error?: ReceiptError;
  /**
   * SHA-256 of the canonical JSON of the decision that let the attempt run (`decisionDigest`), on
   * the receipt of an outcome whose record carries one; absent on receipts written before it.
   */
  readonly decisionHash?: string;
  /** Set on release receipts. */
  readonly operator?: ReceiptOperator;
}

/** A receipt on the chain, before signing. */
export interface UnsignedReceipt extends ReceiptDraft {
  readonly schema: typeof RECEIPT_SCHEMA;
  /** Position on the chain, from 1. */
  readonly seq: number;
  /** {@link receiptHash} of the previous receipt; null for `seq` 1. */
  readonly prev: string | null;
  /** Names the key that signed it; verification looks the key up by this id. */
  readonly keyId: string;
}

/** A signed receipt, as sinks store it. */
export interface Receipt extends UnsignedReceipt {
  /** base64url signature over {@link signingPayload}. */
  readonly signature: string;
}

/** The bytes a signature covers: the canonical JSON of every field but `signature`. */
export function signingPayload(receipt: UnsignedReceipt | Receipt): string {
  checkOptions('signingPayload', receipt, false, 'receipt');
  const { signature: _signature, ...unsigned } = receipt as Receipt;
  return canonicalJson(unsigned);
}

/**
 * SHA-256 hex of a receipt's canonical JSON, signature included: the next receipt's `prev`.
 *
 * @example
 * next.prev === receiptHash(previous); // an intact link
 */
export function receiptHash(receipt: Receipt): string {
  return fingerprint(receipt);
}

/** The events a record can owe a receipt for. */
export type ReceiptEvent = 'outcome' | 'release' | 'mark_worker_dead' | 'blocked';

/** The receipt id of one event of one record version. */
export function receiptIdOf(transitionKey: string, version: number, event: ReceiptEvent): string {
  return fingerprint({ schema: 'hyphae.receipt-id/v1', transitionKey, version, event });
}

/** The head of a chain: the last receipt's `seq` and hash (`seq` 0 and null for an empty chain). */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string | null;
}

/** The head a chain has after `receipt`. */
export function headOf(receipt: Receipt | null): ChainHead {
  try {
    return receipt === null ? { seq: 0, hash: null } : { seq: receipt.seq, hash: receiptHash(receipt) };
  } catch (cause) {
    return unreadableArgument('headOf', 'receipt', cause);
  }
}

const HEX64 = /^[0-9a-f]{64}$/;

const isString = (value: unknown): value is string => typeof value === 'string';
const isHashOrNull = (value: unknown): boolean => value === null || (isString(value) && HEX64.test(value));

function checkError(value: unknown): string | null {
  if (value === undefined) return null;
  const error = value as Partial<Record<keyof ReceiptError, unknown>> | null;
  if (error === null || typeof error !== 'object') return '`error` is not an object';
  if (!isString(error.name) || !isString(error.message)) return '`error` needs a `name` and a `message`';
  if (error.code !== undefined && !isString(error.code)) return '`error.code` is not a string';
  return null;
}

function checkOperator(value: unknown): string | null {
  if (value === undefined) return null;
  const operator = value as Partial<Record<keyof ReceiptOperator, unknown>> | null;
  if (operator === null || typeof operator !== 'object' || !isString(operator.by) || !isString(operator.reason)) {
    return '`operator` needs a `by` and a `reason`';
  }
  return null;
}

/**
 * Check that a parsed value has the shape of a {@link Receipt}; returns what is wrong, or null.
 * Fields this version does not know are allowed (the signature covers them).
 */
export function receiptShapeProblem(value: unknown): string | null {
  try {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
    const r = value as Partial<Record<keyof Receipt, unknown>>;
    if (r.schema !== RECEIPT_SCHEMA) return `unsupported \`schema\` \`${String(r.schema)}\``;
    if (typeof r.seq !== 'number' || !Number.isSafeInteger(r.seq) || r.seq < 1)
      return '`seq` is not a positive integer';
    if (!isHashOrNull(r.prev)) return '`prev` is not a SHA-256 hex digest or null';
    for (const field of [
      'receiptId',
      'keyId',
      'agentId',
      'action',
      'transitionKey',
      'inputsHash',
      'signature',
    ] as const) {
      if (!isString(r[field]) || r[field] === '') return `\`${field}\` is not a non-empty string`;
    }
    if (!isTermOf(ReceiptActionKind, r.actionKind)) return `unknown \`actionKind\` \`${String(r.actionKind)}\``;
    if (!isTermOf(ReceiptOutcome, r.outcome)) return `unknown \`outcome\` \`${String(r.outcome)}\``;
    if (!isHashOrNull(r.outputsHash)) return '`outputsHash` is not a SHA-256 hex digest or null';
    if (!isString(r.timestamp) || Number.isNaN(Date.parse(r.timestamp))) return '`timestamp` is not an ISO 8601 time';
    if (r.decisionHash !== undefined && !(isString(r.decisionHash) && HEX64.test(r.decisionHash)))
      return '`decisionHash` is not a SHA-256 hex digest';
    return checkError(r.error) ?? checkOperator(r.operator);
  } catch (cause) {
    return unreadableArgument('receiptShapeProblem', 'value', cause);
  }
}

/** True when `value` has the shape of a {@link Receipt}. */
export function isReceipt(value: unknown): value is Receipt {
  try {
    return receiptShapeProblem(value) === null;
  } catch (cause) {
    return unreadableArgument('isReceipt', 'value', cause);
  }
}
