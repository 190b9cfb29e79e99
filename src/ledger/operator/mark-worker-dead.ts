/**
 * `markWorkerDead`: record durably that the owner of a claim is gone, so a peer may take it over.
 *
 * Each mark is one compare-and-set on the record (the stores' existing atomic update): it stamps
 * the signal, ends the lease and bumps the fence, so an owner that was alive after all fails its
 * next write instead of racing the peer that takes over:
 *
 *   A claims (fence 1) ── paused ──────────────────────────── wakes, CAS fails ─► LedgerFencedError
 *   ops          markWorkerDead(A, override) ─► fence 2, lease ends ─► B takes over (fence 3) ─► runs
 */
import { LedgerError, LedgerWorkerAliveError } from '../../errors.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import { asStorageError } from '../active-claim.js';
import { replaceRecord } from '../claim-records.js';
import type { ExecutorContext } from '../executor-context.js';
import { heldBy } from '../owner-id.js';
import { afterRecorded, receiptRefFor } from '../receipts/ledger-receipts.js';
import type { MarkWorkerDeadInput, WorkerDeathTarget } from '../types.js';
import { defaultPresumedDeadAfterMs, heartbeatAgeMs, ownerIsGone } from '../worker-death.js';
import { checkDeathTarget, checkMarkDead } from './input.js';
import { claimsHeldBy } from './read-model.js';

/** Attempts at one record before a mark gives up on a record that keeps changing. */
const MAX_ATTEMPTS = 5;

/**
 * The heartbeat age after which the owner of a claim is presumed dead: the ledger's option, else
 * twice the lease (the call's own when a call asks, the ledger's for an operator action).
 */
export function presumedDeadAfterOf(ctx: ExecutorContext, leaseTtlMs: number = ctx.leaseTtlMs): number {
  return ctx.presumedDeadAfterMs ?? defaultPresumedDeadAfterMs(leaseTtlMs);
}

/** Throw `LedgerWorkerAliveError` unless there is evidence the owner of `record` is gone. */
export function requireDeathEvidence(
  ctx: ExecutorContext,
  record: TransitionRecord,
  action: string,
  now: number,
  leaseTtlMs?: number,
): void {
  const after = presumedDeadAfterOf(ctx, leaseTtlMs);
  if (!ownerIsGone(record, now, after)) {
    throw new LedgerWorkerAliveError(record, action, heartbeatAgeMs(record, now), after);
  }
}

async function load(ctx: ExecutorContext, key: string): Promise<TransitionRecord | null> {
  try {
    return await ctx.storage.get(key);
  } catch (error) {
    throw asStorageError('read', error);
  }
}

function notInFlight(record: TransitionRecord): LedgerError {
  return new LedgerError(`Transition \`${record.key}\` is \`${record.outcome}\`, not IN_FLIGHT`, {
    code: 'ledger_not_in_flight',
  });
}

/** The record that declares the owner of `current` dead at `now`. */
function markedRecord(
  ctx: ExecutorContext,
  current: TransitionRecord,
  input: MarkWorkerDeadInput,
  now: number,
): TransitionRecord {
  const owner = current.owner ?? 'unknown';
  const fence = current.fence + 1;
  const override = input.overrideHeartbeat === true;
  return {
    ...current,
    fence,
    leaseUntil: now,
    error: {
      name: 'WorkerDead',
      message: `Worker \`${owner}\` marked dead by ${input.by}: ${input.reason}${override ? ' (heartbeat overridden)' : ''}`,
    },
    workerDeath: {
      owner,
      fence,
      by: input.by,
      reason: input.reason,
      at: now,
      overrideHeartbeat: override,
      heartbeatAgeMs: heartbeatAgeMs(current, now),
    },
    version: current.version + 1,
    receiptRef: receiptRefFor(ctx, 'mark_worker_dead', current.version + 1),
    updatedAt: now,
  };
}

/**
 * Mark the owner of `current` dead, re-reading when the record changed under the mark. Returns
 * null when the record left the owner (`owner` given) or IN_FLIGHT while marking by owner.
 */
async function markOne(
  ctx: ExecutorContext,
  first: TransitionRecord,
  input: MarkWorkerDeadInput,
  owner: string | undefined,
): Promise<TransitionRecord | null> {
  let current = first;
  for (let attempt = 1; ; attempt++) {
    const stillTarget = current.outcome === 'IN_FLIGHT' && (owner === undefined || heldBy(current.owner, owner));
    if (!stillTarget) {
      if (owner !== undefined) return null;
      throw notInFlight(current);
    }
    const now = ctx.clock.now();
    if (input.overrideHeartbeat !== true) requireDeathEvidence(ctx, current, 'Marking the worker dead', now);
    const next = markedRecord(ctx, current, input, now);
    if (await replaceRecord(ctx, 'operator', current, next)) return afterRecorded(ctx, next);
    if (attempt >= MAX_ATTEMPTS) {
      throw new LedgerError(
        `Transition \`${current.key}\` changed while marking its worker dead; read it and try again`,
        {
          code: 'ledger_conflict',
        },
      );
    }
    const reread = await load(ctx, current.key);
    if (reread === null) throw new LedgerError(`No transition \`${current.key}\``, { code: 'ledger_not_found' });
    current = reread;
  }
}

/** The IN_FLIGHT records held by `owner`, paging through the store. */
async function claimsOf(ctx: ExecutorContext, owner: string): Promise<TransitionRecord[]> {
  try {
    return await claimsHeldBy(ctx.storage, owner);
  } catch (error) {
    throw asStorageError('list', error);
  }
}

/** Declare the owner of one transition, or every claim of an owner, dead. */
export async function markWorkerDead(
  ctx: ExecutorContext,
  target: string | WorkerDeathTarget,
  input: MarkWorkerDeadInput,
): Promise<TransitionRecord | readonly TransitionRecord[]> {
  const checked = checkMarkDead(input);
  const aimed = checkDeathTarget(target);
  if (aimed.owner !== undefined) {
    const claims = await claimsOf(ctx, aimed.owner);
    // Every claim is checked before any is marked: a refusal leaves all of them as they were.
    if (checked.overrideHeartbeat !== true) {
      const now = ctx.clock.now();
      for (const record of claims) requireDeathEvidence(ctx, record, 'Marking the worker dead', now);
    }
    const marked: TransitionRecord[] = [];
    for (const record of claims) {
      const done = await markOne(ctx, record, checked, aimed.owner);
      if (done !== null) marked.push(done);
    }
    return marked;
  }
  const { key } = aimed;
  const current = await load(ctx, key);
  if (current === null) throw new LedgerError(`No transition \`${key}\``, { code: 'ledger_not_found' });
  return (await markOne(ctx, current, checked, undefined)) as TransitionRecord;
}
