/**
 * The claim path of one ledgered call: create or meet the record, resolve the gate, act on it.
 */
import {
  LedgerHardBlockError,
  LedgerIdentityConflictError,
  LedgerPollTimeoutError,
  LedgerSoftBlockError,
  LedgerStorageCorruptError,
  LedgerWorkerAliveError,
} from '../errors.js';
import type { TransitionRecord } from '../records/transition-record.js';
import type { LedgerStorage } from '../storage/ledger-storage.js';
import { asStorageError } from './active-claim.js';
import type { CallTrace } from './call-trace.js';
import { type Body, freshRecord, leaseTtlOf, takeoverRecord, tryTakeover } from './claim-records.js';
import type { ExecutorContext } from './executor-context.js';
import { resolveHardBlock } from './hard-block.js';
import { presumedDeadAfterOf } from './operator/mark-worker-dead.js';
import { pollTimeoutOf } from './poll-timeout.js';
import type { PreparedCall } from './prepare-call.js';
import { claimHasExpired, gateFor } from './resolve-gate.js';
import { runClaimed } from './run-claimed.js';
import { checkStorageHazards } from './storage-hazards.js';
import { readStoredResult } from './stored-result.js';
import { type TransitionWatch, watchTransition } from './transition-watch.js';
import type { CallOptions } from './types.js';
import { heartbeatAgeMs, ownerIsGone, requiresDeathSignal } from './worker-death.js';

async function reread(ctx: ExecutorContext, key: string): Promise<TransitionRecord> {
  let record: TransitionRecord | null;
  try {
    record = await ctx.storage.get(key);
  } catch (error) {
    throw asStorageError('read', error);
  }
  // Records are never deleted; one that vanished means the store cannot be trusted.
  if (record === null)
    throw new LedgerStorageCorruptError(ctx.storage.capabilities.name, `transition \`${key}\` disappeared`);
  return record;
}

/** Claim, wait for, return or refuse one call. */
export async function execute(
  ctx: ExecutorContext,
  call: PreparedCall,
  body: Body,
  options: CallOptions,
  trace?: CallTrace,
): Promise<unknown> {
  // An abort before the claim leaves no record: nothing was attempted.
  if (options.abortSignal?.aborted === true) throw options.abortSignal.reason;
  // The wait is counted from the call's arrival: a slow first connection or a contended insert is
  // time the caller spent waiting too, and the timeout error reports what the caller saw.
  const start = ctx.clock.now();
  const hazards = checkStorageHazards(ctx, call);
  if (hazards !== undefined) await hazards;
  const met = await createOrMeet(ctx, call);
  if ('claimed' in met) {
    trace?.claimed(met.claimed, 'fresh');
    return await runClaimed(ctx, call, met.claimed, body, options, trace);
  }
  let existing = met.existing;
  // Only a call that met another's record may wait: the fresh claim above never reads the bound.
  const pollTimeout = pollTimeoutOf(ctx.pollTimeoutMs, leaseTtlOf(ctx, call));
  const pollDeadline = start + pollTimeout;

  let interval = ctx.pollIntervalMs;
  // Opened at the first POLL and kept for the whole wait, so no notice falls between two pauses.
  let watch: TransitionWatch | null = null;
  try {
    for (;;) {
      const now = ctx.clock.now();
      const decision = gateFor(existing, call.attempt, now);
      trace?.gate(existing, decision);
      switch (decision.gate) {
        case 'RETURN':
          return readStoredResult(existing);
        case 'POLL': {
          // The owner holds the lease, and renews it while its body runs: keep waiting, however long
          // the call takes, up to the poll timeout. Renewals that stop let the lease expire, and the
          // gate then sends this caller back to the claim path (takeover or hard block).
          if (now >= pollDeadline) throw new LedgerPollTimeoutError(existing, now - start, pollTimeout);
          // Wake no later than the lease expiry, so an abandoned claim goes back to the claim path.
          const untilExpiry = existing.leaseUntil === null ? interval : Math.max(1, existing.leaseUntil - now);
          watch ??= watchTransition(ctx.storage, existing.key);
          await watch.pause(ctx.clock, Math.min(interval, untilExpiry, pollDeadline - now), options.abortSignal);
          interval = Math.min(interval * 2, ctx.pollMaxIntervalMs);
          existing = await reread(ctx, existing.key);
          continue;
        }
        case 'SOFT_BLOCK':
          if (ctx.deferReadOnlyUnknown) throw new LedgerSoftBlockError(existing);
          break;
        case 'ALLOW':
        case 'RECLAIM': {
          const alive = untilPresumedDead(ctx, call, existing, now);
          if (alive === null) break;
          // An expired claim whose owner may be alive: wait, never take it over. Without a
          // `pollTimeoutMs` of the caller's, the wait lasts until the owner is presumed dead, so a
          // redispatch after a crash proceeds (takes over or hard-blocks) instead of failing early.
          const presumedDeadAt = now + Math.max(0, alive.afterMs - alive.ageMs) + 1;
          const deadline = ctx.pollTimeoutMs === undefined ? Math.max(pollDeadline, presumedDeadAt) : pollDeadline;
          if (now >= deadline) {
            throw new LedgerWorkerAliveError(existing, 'Taking over the expired claim', alive.ageMs, alive.afterMs);
          }
          watch ??= watchTransition(ctx.storage, existing.key);
          await watch.pause(
            ctx.clock,
            Math.min(interval, Math.max(1, alive.afterMs - alive.ageMs), deadline - now),
            options.abortSignal,
          );
          interval = Math.min(interval * 2, ctx.pollMaxIntervalMs);
          existing = await reread(ctx, existing.key);
          continue;
        }
        case 'HARD_BLOCK':
        case 'REPAIR': {
          const resolution = await resolveHardBlock(ctx, call, existing, decision);
          if (resolution.kind === 'return') {
            trace?.recorded(resolution.record);
            return resolution.value;
          }
          if (resolution.kind === 'run') {
            watch?.close();
            trace?.claimed(resolution.record, resolution.via);
            return await runClaimed(ctx, call, resolution.record, body, options, trace);
          }
          existing = resolution.record;
          continue;
        }
      }
      const next = takeoverRecord(ctx, call, existing, now, { claim: `${decision.gate}: ${decision.reason}` });
      if (await tryTakeover(ctx, existing, next)) {
        watch?.close();
        trace?.claimed(next, 'takeover');
        return await runClaimed(ctx, call, next, body, options, trace);
      }
      existing = await reread(ctx, existing.key);
    }
  } finally {
    watch?.close();
  }
}

/**
 * For an expired claim that needs death evidence and has none: its heartbeat age and the age at
 * which its owner is presumed dead. Null when the claim may be taken over.
 */
function untilPresumedDead(
  ctx: ExecutorContext,
  call: PreparedCall,
  existing: TransitionRecord,
  now: number,
): { readonly ageMs: number; readonly afterMs: number } | null {
  if (!claimHasExpired(existing, now) || !requiresDeathSignal(ctx.reclaimRequiresDeathSignal, existing.sideEffectClass))
    return null;
  const afterMs = presumedDeadAfterOf(ctx, leaseTtlOf(ctx, call));
  return ownerIsGone(existing, now, afterMs) ? null : { ageMs: heartbeatAgeMs(existing, now), afterMs };
}

/** True when `stored` is the record `claim` inserted, unwritten since: owner ids are never reused. */
function carriesClaim(stored: TransitionRecord, claim: TransitionRecord): boolean {
  return stored.owner === claim.owner && stored.version === 1;
}

/**
 * Insert a fresh claim, or return the record it meets.
 *
 * A ticket held by another transition is an identity conflict when the arguments differ; with
 * the same tool and arguments (a redispatch after a policy change, say) the holder is the
 * transition, so its gate applies and nothing runs twice.
 */
async function createOrMeet(
  ctx: ExecutorContext,
  call: PreparedCall,
): Promise<{ readonly claimed: TransitionRecord } | { readonly existing: TransitionRecord }> {
  let record = freshRecord(ctx, call, ctx.clock.now());
  for (;;) {
    let outcome: Awaited<ReturnType<LedgerStorage['create']>>;
    try {
      outcome = await ctx.storage.create(record);
    } catch (error) {
      // The insert may have landed before its reply was lost: a record carrying this very claim is
      // ours to run. Anything else, or no answer, refuses.
      const stored = await ctx.storage.get(record.key).catch(() => null);
      if (stored !== null && carriesClaim(stored, record)) return { claimed: stored };
      throw asStorageError('claim', error);
    }
    if (outcome.created) return { claimed: record };
    if (outcome.conflict === 'key') {
      // A client that sends a command again after a reconnect (ioredis does by default) meets the
      // insert its first copy made: that record is this claim's own.
      if (carriesClaim(outcome.record, record)) return { claimed: outcome.record };
      return { existing: outcome.record };
    }
    const holder = outcome.record;
    if (holder.tool === call.spec.name && holder.argsFingerprint === call.argsFingerprint) return { existing: holder };
    const ticket = call.ticket ?? '';
    switch (call.spec.onArgsDrift) {
      case 'hard':
        throw new LedgerHardBlockError(holder, `tool call id \`${ticket}\` was reused with different arguments`);
      case 'off':
        record = { ...record, ticketKey: null };
        continue;
      default:
        throw new LedgerIdentityConflictError(holder, ticket, call.spec.name);
    }
  }
}
