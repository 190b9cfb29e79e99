/**
 * Public option and spec types of the ledger.
 */
import type { Clock } from '../core/clock.js';
import type { DecisionVerdict } from '../records/decision.js';
import type { RetryPermission, SideEffectClass, Spendability } from '../records/envelope.js';
import type { LedgerScope, TransitionRecord } from '../records/transition-record.js';
import type { LedgerStorage, ListPage, ListQuery } from '../storage/ledger-storage.js';
import type { ReceiptSink } from '../storage/receipt-sink.js';
import type { LedgerCallEvent, LedgerEvent } from './events.js';
import type { GuardRecords } from './guard-records.js';
import type { ReceiptWriter } from './receipts/receipt-writer.js';
import type { ReceiptSigner } from './receipts/signers.js';
import type { ToolCapability } from './tool-capability.js';
import type { DeathSignalPolicy } from './worker-death.js';

export type { LedgerCallEvent, LedgerCallInfo, LedgerEvent } from './events.js';

/** Where the ledger reports what it cannot raise (a lost completion write, a marker outside a tool). */
export interface LedgerLogger {
  debug?(message: string, data?: Readonly<Record<string, unknown>>): void;
  warn?(message: string, data?: Readonly<Record<string, unknown>>): void;
  error?(message: string, data?: Readonly<Record<string, unknown>>): void;
}

/** What to do when a tool call id is reused with different arguments in one run scope. */
export type ArgsDriftPolicy = 'soft' | 'hard' | 'off';

/** What a reconciler is asked about: a record whose effect may or may not have happened. */
export interface ReconcileRequest {
  readonly record: TransitionRecord;
  /** The provider's operation id recorded with `recordExternalOperation`. */
  readonly externalOperationRef: string;
  /** The arguments of the call now asking to run. */
  readonly args: unknown;
  /** Aborted when the reconcile timeout passes. */
  readonly signal: AbortSignal;
}

/**
 * A reconciler's finding; anything else (a throw, a timeout, `UNKNOWN`) keeps the hard block.
 *
 * `NOT_EXECUTED` must be final: answer it only after voiding the operation at the provider by its
 * ref (cancel the payment intent, revoke the draft), or when the provider itself rejects a late
 * attempt with that ref. An expired lease shows that an owner is late, not that it is dead; an owner
 * paused between its last ledger write and its provider call cannot be fenced by the ledger, only
 * by the provider.
 */
export type ReconcileVerdict =
  | { readonly status: 'COMPLETED'; readonly result?: unknown }
  | { readonly status: 'NOT_EXECUTED' }
  | { readonly status: 'UNKNOWN'; readonly reason?: string };

/** Asks the provider whether an operation happened. May be sync or async. */
export type Reconciler = (request: ReconcileRequest) => ReconcileVerdict | Promise<ReconcileVerdict>;

/** A reconciler as an object (mycelium-runtime's protocol): its `reconcile` method is called. */
export interface ReconcilerObject {
  reconcile(request: ReconcileRequest): ReconcileVerdict | Promise<ReconcileVerdict>;
}

/**
 * Where the ledger's receipts go and who signs them: a sink and a signer, or a writer shared with
 * another ledger (an action ledger and a task ledger on one chain).
 */
export type LedgerReceiptsOption = { readonly sink: ReceiptSink; readonly signer: ReceiptSigner } | ReceiptWriter;

/** Options of {@link Ledger.sweepReceipts}. */
export interface SweepReceiptsOptions {
  /** Only look at records updated at or after this epoch ms (a sweep after a known crash time). */
  readonly updatedFrom?: number;
  /** Records per `storage.list` page. Default 500. */
  readonly pageSize?: number;
}

/** What {@link Ledger.sweepReceipts} did. */
export interface SweepReceiptsReport {
  /** Records looked at. */
  readonly scanned: number;
  /** Records that owed a receipt. */
  readonly owed: number;
  /** Receipts appended by this sweep. */
  readonly appended: number;
  /** Owed receipts the chain already held (written before a crash, or by another process). */
  readonly duplicates: number;
  /** `receiptRef`s written onto records. */
  readonly refsWritten: number;
  /** Records whose receipt or ref could not be written (see the logger); a later sweep retries them. */
  readonly failed: number;
}

/** Options of {@link createLedger}. */
export interface LedgerOptions {
  readonly storage: LedgerStorage;
  readonly agentId: string;
  readonly policyVersion: string;
  /** Lease length; ≤ 0 is unbounded. Default 300 000 (5 minutes). */
  readonly leaseTtlMs?: number;
  /** How often a running call renews its lease. Default a third of the lease; 0 turns renewal off. */
  readonly leaseRenewIntervalMs?: number;
  /** First poll interval while another owner runs the call. Default 25 ms, doubling to `pollMaxIntervalMs`. */
  readonly pollIntervalMs?: number;
  /** Longest poll interval. Default 1 000 ms. */
  readonly pollMaxIntervalMs?: number;
  /**
   * How long a caller waits while another owner holds the lease (renewing it as its body runs).
   * Default 1 800 000 (30 minutes); never shorter than the lease. A stop of the renewals ends the
   * wait sooner: the lease expires and the caller goes back to the claim path.
   */
  readonly pollTimeoutMs?: number;
  readonly clock?: Clock;
  /** Default reconciler for tools that declare none: a function, or an object with `reconcile`. */
  readonly reconciler?: Reconciler | ReconcilerObject;
  /** A reconciler slower than this counts as UNKNOWN. Default 10 000 ms. */
  readonly reconcileTimeoutMs?: number;
  readonly logger?: LedgerLogger;
  /** Default `'soft'`. */
  readonly onArgsDrift?: ArgsDriftPolicy;
  /**
   * A consequential tool (`keyed_mutate`, `non_idempotent_mutate`, `irreversible`, with `identity:
   * 'call'`) called without a `toolCallId`, `requestId` or `ledger.run` dispatch id:
   * `'allow_derived'` (default) keys it by its arguments and says so once per tool through
   * `logger`; `'require_explicit'` refuses it (`missing_call_id`) before anything is claimed.
   */
  readonly requestIdentity?: 'allow_derived' | 'require_explicit';
  /** Raise `LedgerSoftBlockError` instead of retrying a read whose record is UNKNOWN or BLOCKED. */
  readonly deferReadOnlyUnknown?: boolean;
  /**
   * Which classes need evidence that the owner of an expired claim is dead before a peer takes the
   * claim over or an operator releases it: a death signal from {@link Ledger.markWorkerDead}, or a
   * heartbeat (the owner's lease renewals) older than `presumedDeadAfterMs`. Without it a call
   * waits, as for a held lease, and raises `LedgerWorkerAliveError` when its wait runs out.
   * `'consequential'` (default): `keyed_mutate`, `non_idempotent_mutate`, `irreversible`; `true`:
   * every class, reads and tasks too; `false`: lease expiry alone counts as death.
   */
  readonly reclaimRequiresDeathSignal?: DeathSignalPolicy;
  /** Heartbeat age after which an owner is presumed dead. Default twice the call's lease. */
  readonly presumedDeadAfterMs?: number;
  /**
   * Prefix of owner ids written into claims (`<ownerId>:<random>#<n>`). Default `host:pid`. The random
   * part keeps owner ids unique when several ledgers share a prefix.
   */
  readonly ownerId?: string;
  /**
   * Sign and chain a receipt for every terminal outcome, refusal (BLOCKED), release and worker
   * marked dead. A receipt that cannot be written never changes a call's result or error: it is
   * reported through `logger` and {@link Ledger.sweepReceipts} writes it later.
   */
  readonly receipts?: LedgerReceiptsOption;
  /**
   * Observe the ledger's durable steps (see {@link LedgerEvent}). Called synchronously; a throwing
   * hook is reported through `logger` and ignored. Crash tests use it to stop a process between a
   * completion and its receipt.
   */
  readonly onEvent?: (event: LedgerEvent) => void;
  /**
   * Observe every guarded call step by step, from its start to its end (see {@link LedgerCallEvent}):
   * claims, gate decisions and polls, lease renewals, fences, the recorded outcome. Telemetry uses it
   * for one span per call. Without it the claim path builds no event.
   */
  readonly onCallEvent?: (event: LedgerCallEvent) => void;
}

/** Per-call options: the same shape as an AI SDK tool's `execute` options. */
export interface CallOptions {
  readonly toolCallId?: string;
  readonly requestId?: string;
  readonly scope?: LedgerScope;
  /**
   * The provider's operation id, when the caller knows it before the call (an idempotency key it
   * chose and passes to the provider): written with the claim, at no extra store write, so a
   * reconciler can ask the provider about a call that died mid-effect, as after
   * `recordExternalOperation`.
   */
  readonly externalOperationRef?: string;
  /**
   * Passed to the body. When it fires the call rejects at once with its reason, while the claim
   * stays IN_FLIGHT until the body settles and records its real outcome; a signal that fired
   * before the call claims nothing.
   */
  readonly abortSignal?: AbortSignal;
  /**
   * The verdicts of the checks the caller ran on this call before handing it to the ledger (a
   * guard pipeline passes its registry, fuse, argument and approval verdicts). They are written on
   * the record with the claim, followed by the ledger's own `ledger` verdict, as its `decision`.
   * A denying verdict refuses the call (`decision_denied`) before anything is claimed, and writes a
   * `denial` record of the refusal under a key of its own (the transition stays unclaimed). Never
   * put arguments or secrets in a reason: it is stored.
   */
  readonly verdicts?: readonly DecisionVerdict[];
}

/** Options of a task call. */
export interface TaskCallOptions extends CallOptions {
  /** Explicit task id; otherwise taken from `idFrom` fields or a hash of the arguments. */
  readonly taskId?: string;
}

/** How a tool's transition is identified. */
export type ToolIdentity = 'call' | 'intent';

/** Declaration of a ledgered tool. */
export interface ToolSpec {
  readonly name: string;
  /** A class name or a configuration alias (`payment`, `email`, …). */
  readonly sideEffectClass: SideEffectClass | string;
  readonly retryPermission?: RetryPermission;
  readonly spendability?: Spendability;
  /** The argument that carries the provider's idempotency key; excluded from the args fingerprint. */
  readonly providerIdempotencyKeyParam?: string;
  /** Opt-in window in which an UNKNOWN keyed call may retry with the same provider key. */
  readonly providerIdempotencyKeyTtlMs?: number;
  /** `'call'` (default) keys a transition by its call id; `'intent'` by scope and arguments only. */
  readonly identity?: ToolIdentity;
  /** Arguments that are bookkeeping, not intent; excluded from the args fingerprint. */
  readonly bookkeepingParams?: readonly string[];
  readonly reconciler?: Reconciler | ReconcilerObject;
  /**
   * Whether the outcome of an unfinished call can be established: `idempotent` (repeating it is
   * safe), `queryable` (a reconciler or the provider key tells), `blind` (nothing can: an ambiguous
   * record never retries). Derived from the class and mechanisms when omitted; a declaration looser
   * than they allow is refused with `ToolCapabilityDeclarationError`.
   */
  readonly capability?: ToolCapability;
  readonly leaseTtlMs?: number;
  readonly onArgsDrift?: ArgsDriftPolicy;
  /**
   * Where the side-effect boundary sits: `'marked'` (default) leaves it to the body, which wraps
   * its external call in `sideEffect()`; `'body'` makes the whole body the effect, so the claim
   * itself is written `maybe_crossed` (no marker needed, one store write less per call) and a
   * body that fails for any reason leaves an UNKNOWN record, never a re-run.
   */
  readonly boundary?: ToolBoundary;
}

/** Where a tool's side-effect boundary sits: see {@link ToolSpec.boundary}. */
export type ToolBoundary = 'marked' | 'body';

/** Declaration of a ledgered task. */
export interface TaskSpec extends Omit<ToolSpec, 'sideEffectClass' | 'identity' | 'onArgsDrift'> {
  /** Default `idempotent_mutate`: a crashed task that never crossed a boundary is reclaimed. */
  readonly sideEffectClass?: SideEffectClass | string;
  /** Argument fields whose values identify the task. */
  readonly idFrom?: readonly string[];
}

/** A ledgered function: same signature as the body, same result for every redispatch. */
export type LedgeredFunction<A, R, O extends CallOptions = CallOptions> = (args: A, options?: O) => Promise<R>;

/** Operator release of a blocked transition: what the operator verified with the provider, who, and why. */
export interface ReleaseInput extends AuditInput {
  /**
   * `completed`: the effect happened, and the transition becomes COMPLETED with `result`.
   * `not_executed`: it did not, and the next call runs the tool exactly once more.
   */
  readonly verified: 'completed' | 'not_executed';
  /** The result to store with `completed`, which the next call returns; refused with `not_executed`. */
  readonly result?: unknown;
}

/** Who declares a worker dead, and why. */
export interface AuditInput {
  readonly by: string;
  readonly reason: string;
}

/** What {@link Ledger.markWorkerDead} declares dead: the owner of one transition, or every claim of an owner. */
export type WorkerDeathTarget = { readonly key: string } | { readonly owner: string };

/** Who declares a worker dead, why, and whether to override a fresh heartbeat. */
export interface MarkWorkerDeadInput extends AuditInput {
  /**
   * Mark the worker dead although its heartbeat is fresher than `presumedDeadAfterMs` (the
   * operator killed it, say). If it is alive after all it is fenced: its next write fails.
   */
  readonly overrideHeartbeat?: boolean;
}

/** Options of {@link Ledger.waitFor}. */
export interface WaitOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** The ledger: wraps tools and tasks, and offers the operator actions. */
export interface Ledger {
  readonly agentId: string;
  readonly policyVersion: string;
  readonly storage: LedgerStorage;
  tool<A, R>(spec: ToolSpec, fn: (args: A, options: CallOptions) => R | Promise<R>): LedgeredFunction<A, Awaited<R>>;
  task<A, R>(
    spec: TaskSpec,
    fn: (args: A, options: TaskCallOptions) => R | Promise<R>,
  ): LedgeredFunction<A, Awaited<R>, TaskCallOptions>;
  /** Run `fn` with a ledger scope (thread, run, node) and optionally a dispatch id. */
  run<R>(scope: LedgerScope & { readonly dispatchId?: string }, fn: () => R): R;
  release(key: string, input: ReleaseInput): Promise<TransitionRecord>;
  /**
   * The records a guard keeps beside the transitions (policy records such as MCP tool pins, calls
   * held for an operator) and the transition a call's ticket resolved to.
   */
  readonly records: GuardRecords;
  /**
   * Record durably that the owner of an IN_FLIGHT transition is dead (who, why, when): its lease
   * ends now and its claim is fenced, so a peer may take it over or an operator release it.
   * Refused with `LedgerWorkerAliveError` while the owner's heartbeat is fresher than
   * `presumedDeadAfterMs`, unless `overrideHeartbeat`. A key (or `{ key }`) marks one transition;
   * `{ owner }` every IN_FLIGHT claim held by that owner id, ledger or `ownerId` prefix.
   */
  markWorkerDead(target: string | { readonly key: string }, input: MarkWorkerDeadInput): Promise<TransitionRecord>;
  markWorkerDead(target: { readonly owner: string }, input: MarkWorkerDeadInput): Promise<readonly TransitionRecord[]>;
  waitFor(key: string, options?: WaitOptions): Promise<TransitionRecord>;
  get(key: string): Promise<TransitionRecord | null>;
  list(query?: ListQuery): Promise<ListPage>;
  /**
   * Write the receipts lost to a crash between a terminal write and its receipt: pages through the
   * store, finds records whose `receiptRef` is missing or pending, appends their receipts (never
   * twice: the receipt id is derived from the record) and writes the refs. Needs `receipts`.
   */
  sweepReceipts(options?: SweepReceiptsOptions): Promise<SweepReceiptsReport>;
  /** Close the storage and, when receipts are on, the receipt sink (after pending appends). */
  close(): Promise<void>;
}
