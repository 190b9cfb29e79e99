/**
 * Which receipt a transition record owes, and the draft of that receipt; pure functions of the record.
 *
 * A write that makes a receipt-worthy event (a terminal outcome, a release, a worker marked dead)
 * sets the record's `receiptRef` to a pending marker, `pending:<event>:<version>`, in the same
 * write; once the receipt is on the chain the ref becomes its `receiptId`. A crash in between leaves
 * the marker, which the sweep finds. A terminal record with no ref at all (written before receipts
 * were turned on, or by a ledger without them) owes its outcome receipt too.
 *
 * The receipt id derives from (transition key, version of the event's write, event), so every
 * emitter — the live call, a takeover, the sweep in another process — builds the same id, and the
 * sink's id check keeps a second copy off the chain.
 */
import { fingerprint } from '../../core/fingerprint.js';
import type { JsonValue } from '../../core/json.js';
import { InvalidArgumentError, recordArgument, unreadableArgument } from '../../invalid-argument.js';
import type { Outcome } from '../../records/envelope.js';
import type { RecordedError, TransitionRecord } from '../../records/transition-record.js';
import {
  type ReceiptDraft,
  type ReceiptError,
  type ReceiptEvent,
  type ReceiptOutcome,
  receiptIdOf,
} from '../../storage/receipt.js';
import { decisionDigest } from '../decision.js';

/** The events a record write can owe a receipt for (a block writes nothing, so it owes none). */
export type RecordEvent = Exclude<ReceiptEvent, 'blocked'>;

const RECORD_EVENTS: ReadonlySet<string> = new Set<RecordEvent>(['outcome', 'release', 'mark_worker_dead']);
const PENDING = 'pending:';

/** The outcomes after which a record owes its outcome receipt. */
export const TERMINAL_OUTCOMES: readonly Outcome[] = Object.freeze([
  'COMPLETED',
  'FAILED_BEFORE_EFFECT',
  'FAILED_AFTER_EFFECT',
  'UNKNOWN',
  'BLOCKED',
]);

const isTerminal = (outcome: Outcome): boolean => TERMINAL_OUTCOMES.includes(outcome);

/** The marker a receipt-worthy write stores in `receiptRef`. */
export function pendingReceiptRef(event: RecordEvent, version: number): string {
  try {
    return `${PENDING}${event}:${version}`;
  } catch (cause) {
    return unreadableArgument('pendingReceiptRef', 'event', cause);
  }
}

/** True when `receiptRef` is a pending marker rather than a receipt id. */
export function isPendingReceiptRef(receiptRef: string | null): boolean {
  return typeof receiptRef === 'string' && receiptRef.startsWith(PENDING);
}

/** A receipt a record owes: its event and the version of the write that made it. */
export interface OwedReceipt {
  readonly event: RecordEvent;
  readonly version: number;
  readonly receiptId: string;
}

function owed(record: TransitionRecord, event: RecordEvent, version: number): OwedReceipt {
  return { event, version, receiptId: receiptIdOf(record.key, version, event) };
}

/** The receipt `record` owes, or null when it owes none. */
export function owedReceipt(record: TransitionRecord): OwedReceipt | null {
  recordArgument('owedReceipt', 'record', record, ['receiptRef', 'outcome', 'key', 'version']);
  return receiptOwedBy(record);
}

/** {@link owedReceipt}, for a record the ledger holds (no argument check; a `receiptRef` of the wrong type is still refused). */
export function receiptOwedBy(record: TransitionRecord): OwedReceipt | null {
  if (record.receiptRef !== null && typeof record.receiptRef !== 'string')
    throw new InvalidArgumentError('owedReceipt', 'record.receiptRef', 'must be a string or null');
  const ref = record.receiptRef;
  if (ref === null) return isTerminal(record.outcome) ? owed(record, 'outcome', record.version) : null;
  if (!ref.startsWith(PENDING)) return null;
  const [event = '', version = ''] = ref.slice(PENDING.length).split(':');
  if (RECORD_EVENTS.has(event) && /^[1-9][0-9]*$/.test(version)) {
    return owed(record, event as RecordEvent, Number(version));
  }
  // A marker this version cannot read still means "owed"; a terminal record owes its outcome.
  return isTerminal(record.outcome) ? owed(record, 'outcome', record.version) : null;
}

function receiptError(error: RecordedError | null): { error?: ReceiptError } {
  if (error === null) return {};
  return {
    error: { name: error.name, message: error.message, ...(error.code === undefined ? {} : { code: error.code }) },
  };
}

function outputsHash(result: JsonValue | undefined): string | null {
  return result === undefined ? null : fingerprint(result);
}

const iso = (epochMs: number): string => new Date(epochMs).toISOString();

function base(record: TransitionRecord, receiptId: string) {
  return {
    receiptId,
    agentId: record.agentId,
    action: record.tool,
    transitionKey: record.key,
    inputsHash: record.argsFingerprint,
  };
}

/** The draft of the receipt `record` owes for `debt`, or null when the record cannot back it. */
export function draftFor(record: TransitionRecord, debt: OwedReceipt): ReceiptDraft | null {
  switch (debt.event) {
    case 'outcome':
      if (!isTerminal(record.outcome)) return null;
      return {
        ...base(record, debt.receiptId),
        actionKind: record.kind,
        outcome: record.outcome as ReceiptOutcome,
        outputsHash: outputsHash(record.result),
        timestamp: iso(record.completedAt ?? record.updatedAt),
        ...receiptError(record.error),
        ...(record.decision === undefined ? {} : { decisionHash: decisionDigest(record.decision) }),
      };
    case 'release': {
      const release = record.operatorResolution;
      if (release === null) return null;
      const completed = release.verified === 'completed';
      return {
        ...base(record, debt.receiptId),
        actionKind: 'release',
        outcome: completed ? 'COMPLETED' : 'NOT_EXECUTED',
        outputsHash: completed ? outputsHash(record.result) : null,
        timestamp: iso(release.at),
        operator: { by: release.by, reason: release.reason },
      };
    }
    case 'mark_worker_dead':
      return {
        ...base(record, debt.receiptId),
        actionKind: 'mark_worker_dead',
        outcome: 'EXPIRED',
        outputsHash: null,
        timestamp: iso(record.updatedAt),
        ...receiptError(record.error),
      };
  }
}

/** The draft of a `BLOCKED` receipt: the ledger refused to run `record`'s call. */
export function blockedDraft(record: TransitionRecord, error: RecordedError, now: number): ReceiptDraft {
  return {
    ...base(record, receiptIdOf(record.key, record.version, 'blocked')),
    actionKind: record.kind,
    outcome: 'BLOCKED',
    outputsHash: null,
    timestamp: iso(now),
    ...receiptError(error),
  };
}
