/**
 * Operator actions: release a blocked transition, wait for an outcome (`markWorkerDead` is in
 * mark-worker-dead.ts).
 *
 * None of them deletes anything; each is a compare-and-set so it cannot race a running owner.
 */
import {
  LedgerAlreadyResolvedError,
  LedgerError,
  LedgerPollTimeoutError,
  LedgerReleaseRefusedError,
} from '../../errors.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import { asStorageError } from '../active-claim.js';
import { replaceRecord } from '../claim-records.js';
import type { ExecutorContext } from '../executor-context.js';
import { pollTimeoutOf } from '../poll-timeout.js';
import { afterRecorded, receiptRefFor } from '../receipts/ledger-receipts.js';
import { claimHasExpired } from '../resolve-gate.js';
import { completedWith } from '../stored-result.js';
import { watchTransition } from '../transition-watch.js';
import type { ReleaseInput, WaitOptions } from '../types.js';
import { requiresDeathSignal } from '../worker-death.js';
import { checkRelease } from './input.js';
import { requireDeathEvidence } from './mark-worker-dead.js';

async function load(ctx: ExecutorContext, key: string): Promise<TransitionRecord | null> {
  try {
    return await ctx.storage.get(key);
  } catch (error) {
    throw asStorageError('read', error);
  }
}

/**
 * Record what an operator verified with the provider.
 *
 * `completed` stores the result and resolves the transition; `not_executed` leaves a one-shot
 * release that the next call consumes to run the tool exactly once more. Refused while a lease is
 * held, on a COMPLETED transition, and while an earlier release is still pending.
 */
export async function releaseTransition(
  ctx: ExecutorContext,
  key: string,
  input: ReleaseInput,
): Promise<TransitionRecord> {
  const checked = checkRelease(input);
  const current = await load(ctx, key);
  if (current === null) throw new LedgerReleaseRefusedError(key, 'no such transition', null);
  // A denial records a refusal; it never held a claim, so there is nothing to release.
  if (current.kind === 'denial')
    throw new LedgerReleaseRefusedError(key, 'it is a denial record: the refused call was never claimed', current);
  if (current.outcome === 'COMPLETED') throw new LedgerAlreadyResolvedError(current);
  const now = ctx.clock.now();
  if (current.outcome === 'IN_FLIGHT' && !claimHasExpired(current, now)) {
    throw new LedgerReleaseRefusedError(key, `a lease is held by \`${current.owner ?? 'unknown'}\``, current);
  }
  // An expired claim whose owner may be alive (paused, partitioned) is not released on the lease alone.
  if (current.outcome === 'IN_FLIGHT' && requiresDeathSignal(ctx.reclaimRequiresDeathSignal, current.sideEffectClass)) {
    requireDeathEvidence(ctx, current, `Release of \`${key}\``, now);
  }
  if (current.operatorResolution?.verified === 'not_executed' && current.operatorResolution.consumedAt === null) {
    throw new LedgerReleaseRefusedError(key, 'an earlier release is still pending', current);
  }
  const resolution = {
    verified: checked.verified,
    by: checked.by,
    reason: checked.reason,
    at: now,
    consumedAt: checked.verified === 'completed' ? now : null,
    previousOutcome: current.outcome,
  };
  // Releasing an abandoned IN_FLIGHT claim fences its owner: a stalled worker that wakes later must
  // not write `maybe_crossed` and spend the attempt this release vouches was never made.
  let next: TransitionRecord = {
    ...current,
    operatorResolution: resolution,
    fence: current.outcome === 'IN_FLIGHT' ? current.fence + 1 : current.fence,
    version: current.version + 1,
    receiptRef: receiptRefFor(ctx, 'release', current.version + 1),
    updatedAt: now,
  };
  if (checked.verified === 'completed') next = completedWith(next, checked.result, now);
  if (!(await replaceRecord(ctx, 'operator', current, next))) {
    throw new LedgerReleaseRefusedError(key, 'the transition changed while releasing; read it and try again', current);
  }
  return afterRecorded(ctx, next);
}

/** Wait until a transition leaves IN_FLIGHT (or its lease expires) and return it. */
export async function waitForTransition(
  ctx: ExecutorContext,
  key: string,
  options: WaitOptions = {},
): Promise<TransitionRecord> {
  const start = ctx.clock.now();
  // Like a polling caller: the owner's renewals keep the wait going up to the ledger's poll timeout.
  const timeout = options.timeoutMs ?? pollTimeoutOf(ctx.pollTimeoutMs, ctx.leaseTtlMs);
  let interval = ctx.pollIntervalMs;
  const watch = watchTransition(ctx.storage, key);
  try {
    for (;;) {
      const record = await load(ctx, key);
      if (record === null) throw new LedgerError(`No transition \`${key}\``, { code: 'ledger_not_found' });
      const now = ctx.clock.now();
      if (record.outcome !== 'IN_FLIGHT' || claimHasExpired(record, now)) return record;
      if (now - start >= timeout) throw new LedgerPollTimeoutError(record, now - start, timeout);
      await watch.pause(ctx.clock, Math.min(interval, timeout - (now - start)), options.signal);
      interval = Math.min(interval * 2, ctx.pollMaxIntervalMs);
    }
  } finally {
    watch.close();
  }
}
