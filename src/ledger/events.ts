/**
 * What a ledger reports as it works: the records and receipts it wrote (`onEvent`) and each call's
 * course through the claim path (`onCallEvent`).
 */
import type { Gate, SideEffectClass } from '../records/envelope.js';
import type { RecordedError, TransitionRecord } from '../records/transition-record.js';
import type { Receipt } from '../storage/receipt.js';

/**
 * What the ledger reports through `onEvent`, in order:
 *
 * - `transition_recorded`: a terminal outcome, a release, a worker marked dead or a denial (a
 *   `denial` record, or one more repeat counted on it) is durable, and its receipt (when receipts
 *   are on) is not yet written;
 * - `receipt_written`: that receipt is on the chain (`receipt` is null when the chain already held
 *   it) and its `receiptRef` is not yet on the record;
 * - `denial_not_recorded`: a refused call's denial record could not be written (the call was
 *   refused all the same).
 */
export type LedgerEvent =
  | { readonly type: 'transition_recorded'; readonly record: TransitionRecord }
  | {
      readonly type: 'receipt_written';
      readonly receiptId: string;
      readonly receipt: Receipt | null;
      readonly record: TransitionRecord;
    }
  | {
      readonly type: 'denial_not_recorded';
      /** The denial record the ledger tried to write (or to count a repeat on). */
      readonly record: TransitionRecord;
      readonly error: RecordedError;
    };

/** The call a {@link LedgerCallEvent} belongs to. */
export interface LedgerCallInfo {
  /** Unique per call within this ledger object (a counter), so an observer can tell concurrent calls apart. */
  readonly id: number;
  readonly key: string;
  readonly tool: string;
  readonly kind: 'tool' | 'task';
  readonly sideEffectClass: SideEffectClass;
  readonly ticket: string | null;
}

/**
 * What the ledger reports through `onCallEvent`, for each guarded call from its start to its end:
 *
 * - `call_started`: the arguments are read and the key is known; nothing is claimed yet;
 * - `gate`: the call met an existing record and its gate was resolved (once per poll wake-up);
 * - `claimed`: this call holds the claim: a fresh record, a takeover of an expired or failed one, a
 *   consumed operator release, or a reconciler's proven NOT_EXECUTED;
 * - `lease_renewed`: the running body's lease was extended;
 * - `fenced`: another owner took the claim over; this call can write no more;
 * - `recorded`: this call wrote the outcome (COMPLETED, FAILED_*, UNKNOWN, or a reconciled result);
 * - `call_settled`: the call returned (`ok`) or threw, with the last record it saw.
 *
 * `at` is the ledger clock's epoch ms. Called synchronously; a throwing hook is reported through
 * `logger` and ignored.
 */
export type LedgerCallEvent =
  | { readonly type: 'call_started'; readonly call: LedgerCallInfo; readonly at: number }
  | {
      readonly type: 'gate';
      readonly call: LedgerCallInfo;
      readonly record: TransitionRecord;
      readonly gate: Gate;
      readonly reason: string;
      readonly at: number;
    }
  | {
      readonly type: 'claimed';
      readonly call: LedgerCallInfo;
      readonly record: TransitionRecord;
      readonly via: 'fresh' | 'takeover' | 'release' | 'reconciled';
      readonly at: number;
    }
  | {
      readonly type: 'lease_renewed' | 'fenced' | 'recorded';
      readonly call: LedgerCallInfo;
      readonly record: TransitionRecord;
      readonly at: number;
    }
  | {
      readonly type: 'call_settled';
      readonly call: LedgerCallInfo;
      readonly ok: true;
      readonly record: TransitionRecord | null;
      readonly at: number;
    }
  | {
      readonly type: 'call_settled';
      readonly call: LedgerCallInfo;
      readonly ok: false;
      readonly record: TransitionRecord | null;
      readonly error: unknown;
      readonly at: number;
    };
