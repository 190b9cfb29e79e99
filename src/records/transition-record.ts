/**
 * The shape of one transition record as stored by every driver.
 */
import type { JsonValue } from '../core/json.js';
import type { TransitionDecision } from './decision.js';
import type { Boundary, Outcome, RetryPermission, SideEffectClass, Spendability } from './envelope.js';

/** Where a call runs: the conversation thread, the run inside it, and the graph node. */
export interface LedgerScope {
  readonly threadId?: string;
  readonly runId?: string;
  readonly node?: string;
}

/**
 * Whether a record belongs to a tool call or a task, or records a call its checks refused
 * (`denial`: written under a key of its own, never claimed, never gated on).
 */
export type RecordKind = 'tool' | 'task' | 'denial';

/** The error a failed attempt left behind. */
export interface RecordedError {
  readonly name: string;
  readonly message: string;
  readonly code?: string;
}

/** The audit trail of an operator release. */
export interface OperatorResolution {
  readonly verified: 'completed' | 'not_executed';
  readonly by: string;
  readonly reason: string;
  readonly at: number;
  /** When the ledger consumed a `not_executed` release to run the tool once more; null while pending. */
  readonly consumedAt: number | null;
  /** The outcome the record had when the operator released it. */
  readonly previousOutcome: Outcome;
}

/** The audit trail of a worker declared dead: evidence that lets a peer take over its claim. */
export interface WorkerDeathSignal {
  /** The owner declared dead: the signal counts only while this owner holds the record. */
  readonly owner: string;
  /** The record's fence once marked: marking fences the owner, so a worker that was alive after all cannot write. */
  readonly fence: number;
  readonly by: string;
  readonly reason: string;
  readonly at: number;
  /** The owner's heartbeat was fresher than `presumedDeadAfterMs` and the operator overrode it. */
  readonly overrideHeartbeat: boolean;
  /** The heartbeat age when marked. */
  readonly heartbeatAgeMs: number;
}

/** One transition: the durable state of one intent to run a tool or task. */
export interface TransitionRecord {
  readonly key: string;
  readonly kind: RecordKind;
  readonly tool: string;
  readonly agentId: string;
  readonly policyVersion: string;
  readonly scope: LedgerScope;
  /** The tool call id or request id this record was first claimed with. */
  readonly ticket: string | null;
  /** The ticket index entry this record holds (derived from scope and ticket), or null. */
  readonly ticketKey: string | null;
  readonly argsFingerprint: string;
  readonly sideEffectClass: SideEffectClass;
  readonly retryPermission: RetryPermission;
  readonly spendability: Spendability;
  readonly outcome: Outcome;
  readonly boundary: Boundary;
  /** The claim holding the record (an opaque owner id), or null. */
  readonly owner: string | null;
  /** Claim generation: incremented by every claim and takeover. */
  readonly fence: number;
  /** Compare-and-set counter: incremented by every write. */
  readonly version: number;
  /** Epoch ms at which the lease expires (`now >= leaseUntil` is expired); null is unbounded. */
  readonly leaseUntil: number | null;
  readonly lastHeartbeatAt: number | null;
  readonly attempts: number;
  /** The stored result of a COMPLETED transition, as JSON; absent when the tool returned nothing. */
  readonly result?: JsonValue;
  readonly error: RecordedError | null;
  readonly externalOperationRef: string | null;
  readonly providerIdempotencyKey: string | null;
  readonly firstAttemptAt: number;
  readonly operatorResolution: OperatorResolution | null;
  /** The last worker-death signal (`markWorkerDead`); absent on records never marked. */
  readonly workerDeath?: WorkerDeathSignal | null;
  readonly receiptRef: string | null;
  /**
   * The checks' verdicts that let the current attempt run, written by the write that claimed it
   * (see `effectStateOf`); absent on records written before the decision protocol.
   */
  readonly decision?: TransitionDecision;
  /** On a `denial` record: the key of the transition whose call was refused (never claimed). */
  readonly refusedTransition?: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly completedAt: number | null;
}
