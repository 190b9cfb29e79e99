/**
 * The executor's context and the records a claim writes: a fresh claim and a takeover.
 */
import type { Clock } from '../core/clock.js';
import type { TransitionRecord } from '../records/transition-record.js';
import { asStorageError } from './active-claim.js';
import { claimDecision } from './caller-verdicts.js';
import type { ExecutorContext } from './executor-context.js';
import type { PreparedCall } from './prepare-call.js';
import { settleBeforeReplacing } from './receipts/ledger-receipts.js';
import { withoutResult } from './stored-result.js';
import { announceChange } from './transition-watch.js';
import type { CallOptions } from './types.js';

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
    // A body that is the effect as a whole crosses its boundary with the claim: one write, not two.
    boundary: call.spec.boundary === 'body' ? 'maybe_crossed' : 'not_crossed',
    owner: ctx.newOwner(),
    fence: 1,
    version: 1,
    leaseUntil: ttl > 0 ? now + ttl : null,
    lastHeartbeatAt: now,
    attempts: 1,
    error: null,
    externalOperationRef: call.externalOperationRef,
    providerIdempotencyKey: call.attempt.providerIdempotencyKey,
    firstAttemptAt: now,
    operatorResolution: null,
    receiptRef: null,
    decision: claimDecision(call.verdicts, 'fresh claim', now),
    createdAt: now,
    updatedAt: now,
    completedAt: null,
  };
}

/**
 * The record a takeover writes: a new owner and fence over the existing record.
 *
 * `proven` is set when a reconciler or an operator verified that the earlier attempt did not
 * execute; only then does the boundary start again from `not_crossed`. `claim` says why the ledger
 * let this attempt run (the gate, a consumed release, a reconcile); it closes the new decision.
 */
export function takeoverRecord(
  ctx: ExecutorContext,
  call: PreparedCall,
  existing: TransitionRecord,
  now: number,
  changes: {
    readonly proven?: boolean;
    readonly operatorResolution?: TransitionRecord['operatorResolution'];
    readonly claim?: string;
  } = {},
): TransitionRecord {
  const ttl = leaseTtlOf(ctx, call);
  const resetBoundary = changes.proven === true || call.spec.sideEffectClass === 'read';
  const carried = resetBoundary ? 'not_crossed' : existing.boundary;
  return {
    ...withoutResult(existing),
    sideEffectClass: call.spec.sideEffectClass,
    retryPermission: call.spec.retryPermission,
    spendability: call.spec.spendability,
    outcome: 'IN_FLIGHT',
    boundary: call.spec.boundary === 'body' && carried === 'not_crossed' ? 'maybe_crossed' : carried,
    owner: ctx.newOwner(),
    fence: (Number.isInteger(existing.fence) ? existing.fence : 0) + 1,
    version: existing.version + 1,
    leaseUntil: ttl > 0 ? now + ttl : null,
    lastHeartbeatAt: now,
    attempts: (Number.isInteger(existing.attempts) ? existing.attempts : 0) + 1,
    error: null,
    externalOperationRef: resetBoundary
      ? call.externalOperationRef
      : (existing.externalOperationRef ?? call.externalOperationRef),
    providerIdempotencyKey: call.attempt.providerIdempotencyKey,
    operatorResolution: changes.operatorResolution ?? supersedeRelease(existing.operatorResolution, now),
    // A new attempt owes nothing yet; the receipt of the outcome it replaces is settled first.
    receiptRef: null,
    decision: claimDecision(call.verdicts, changes.claim ?? 'takeover', now),
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
