/**
 * The executor's context and the records a claim writes: a fresh claim and a takeover.
 */
import type { Clock } from '../core/clock.js';
import type { LedgerStorage } from '../storage/ledger-storage.js';
import { asStorageError } from './active-claim.js';
import type { PreparedCall } from './prepare-call.js';
import { settleBeforeReplacing } from './receipts/ledger-receipts.js';
import type { ReceiptWriter } from './receipts/receipt-writer.js';
import { withoutResult } from './stored-result.js';
import type { TransitionRecord } from './transition-record.js';
import { announceChange } from './transition-watch.js';
import type { CallOptions, LedgerEvent, LedgerLogger, Reconciler } from './types.js';
import type { DeathSignalPolicy } from './worker-death.js';

/** The ledger settings the executor reads. */
export interface ExecutorContext {
  readonly storage: LedgerStorage;
  readonly clock: Clock;
  readonly agentId: string;
  readonly policyVersion: string;
  readonly leaseTtlMs: number;
  /** Undefined: a third of the lease; 0: no renewal. */
  readonly renewIntervalMs: number | undefined;
  /** Arms a one-shot timer on the ledger clock (its `schedule`, or `sleep` when it has none). */
  readonly schedule: (ms: number, fn: () => void) => () => void;
  readonly pollIntervalMs: number;
  readonly pollMaxIntervalMs: number;
  readonly pollTimeoutMs: number | undefined;
  readonly reconciler: Reconciler | undefined;
  readonly reconcileTimeoutMs: number;
  readonly logger: LedgerLogger | undefined;
  readonly deferReadOnlyUnknown: boolean;
  /** Which classes need death evidence before an expired claim is taken over or released. */
  readonly reclaimRequiresDeathSignal: DeathSignalPolicy;
  /** Undefined: twice the lease of the call (or of the record). */
  readonly presumedDeadAfterMs: number | undefined;
  readonly markerWarned: Set<string>;
  /** Signs and appends receipts; undefined when receipts are off. */
  readonly receipts: ReceiptWriter | undefined;
  readonly onEvent: ((event: LedgerEvent) => void) | undefined;
  newOwner(): string;
}

const STOPPED = new Error('Lease renewal stopped');

/** A clock's one-shot timer: its `schedule`, or one made of `sleep` for clocks without it. */
export function scheduleOn(clock: Clock): (ms: number, fn: () => void) => () => void {
  if (clock.schedule !== undefined) return clock.schedule.bind(clock);
  return (ms, fn) => {
    const stop = new AbortController();
    clock.sleep(ms, stop.signal).then(fn, () => undefined);
    return () => stop.abort(STOPPED);
  };
}

/** The body of a ledgered function. */
export type Body = (args: unknown, options: CallOptions) => unknown;

/** Lease length of one call: the tool's own, else the ledger's. */
export function leaseTtlOf(ctx: ExecutorContext, call: PreparedCall): number {
  return call.spec.leaseTtlMs ?? ctx.leaseTtlMs;
}

/** The record a fresh claim writes. */
export function freshRecord(ctx: ExecutorContext, call: PreparedCall, now: number): TransitionRecord {
  const ttl = leaseTtlOf(ctx, call);
  return {
    key: call.key,
    kind: call.spec.kind,
    tool: call.spec.name,
    agentId: ctx.agentId,
    policyVersion: ctx.policyVersion,
    scope: call.scope,
    ticket: call.ticket,
    ticketKey: call.ticketKey,
    argsFingerprint: call.argsFingerprint,
    sideEffectClass: call.spec.sideEffectClass,
    retryPermission: call.spec.retryPermission,
    spendability: call.spec.spendability,
    outcome: 'IN_FLIGHT',
    boundary: 'not_crossed',
    owner: ctx.newOwner(),
    fence: 1,
    version: 1,
    leaseUntil: ttl > 0 ? now + ttl : null,
    lastHeartbeatAt: now,
    attempts: 1,
    error: null,
    externalOperationRef: null,
    providerIdempotencyKey: call.attempt.providerIdempotencyKey,
    firstAttemptAt: now,
    operatorResolution: null,
    receiptRef: null,
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
}

/**
 * The record a takeover writes: a new owner and fence over the existing record.
 *
 * `proven` is set when a reconciler or an operator verified that the earlier attempt did not
 * execute; only then does the boundary start again from `not_crossed`.
 */
export function takeoverRecord(
  ctx: ExecutorContext,
  call: PreparedCall,
  existing: TransitionRecord,
  now: number,
  changes: { readonly proven?: boolean; readonly operatorResolution?: TransitionRecord['operatorResolution'] } = {},
): TransitionRecord {
  const ttl = leaseTtlOf(ctx, call);
  const resetBoundary = changes.proven === true || call.spec.sideEffectClass === 'read';
  return {
    ...withoutResult(existing),
    sideEffectClass: call.spec.sideEffectClass,
    retryPermission: call.spec.retryPermission,
    spendability: call.spec.spendability,
    outcome: 'IN_FLIGHT',
    boundary: resetBoundary ? 'not_crossed' : existing.boundary,
    owner: ctx.newOwner(),
    fence: (Number.isInteger(existing.fence) ? existing.fence : 0) + 1,
    version: existing.version + 1,
    leaseUntil: ttl > 0 ? now + ttl : null,
    lastHeartbeatAt: now,
    attempts: (Number.isInteger(existing.attempts) ? existing.attempts : 0) + 1,
    error: null,
    externalOperationRef: resetBoundary ? null : existing.externalOperationRef,
    providerIdempotencyKey: call.attempt.providerIdempotencyKey,
    operatorResolution: changes.operatorResolution ?? supersedeRelease(existing.operatorResolution, now),
    // A new attempt owes nothing yet; the receipt of the outcome it replaces is settled first.
    receiptRef: null,
    updatedAt: now,
    completedAt: null,
  };
}

/**
 * Any takeover spends a pending `not_executed` release: the release vouches for the attempt the
 * operator looked at, never for one made after it.
 */
function supersedeRelease(
  resolution: TransitionRecord['operatorResolution'],
  now: number,
): TransitionRecord['operatorResolution'] {
  return resolution?.verified === 'not_executed' && resolution.consumedAt === null
    ? { ...resolution, consumedAt: now }
    : resolution;
}

/**
 * CAS `next` over `current` outside a running claim (a takeover, an operator's release or mark):
 * true when it was written. A receipt `current` still owes (its process died before writing it) is
 * emitted first, so replacing the record loses nothing; a write wakes this process's pollers.
 */
export async function replaceRecord(
  ctx: ExecutorContext,
  operation: string,
  current: TransitionRecord,
  next: TransitionRecord,
): Promise<boolean> {
  await settleBeforeReplacing(ctx, current);
  let written: boolean;
  try {
    written = await ctx.storage.update(current.key, current.version, next);
  } catch (error) {
    throw asStorageError(operation, error);
  }
  if (written) announceChange(ctx.storage, current.key);
  return written;
}

/** CAS `next` over `existing`; true when this caller now holds the claim. */
export function tryTakeover(
  ctx: ExecutorContext,
  existing: TransitionRecord,
  next: TransitionRecord,
): Promise<boolean> {
  return replaceRecord(ctx, 'claim', existing, next);
}
