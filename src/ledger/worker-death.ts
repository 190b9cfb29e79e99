/**
 * Worker-death evidence: when may a peer take over a claim whose lease has passed?
 *
 * An expired lease shows that an owner is late, not that it is dead (a GC pause, a frozen VM, a
 * partition from the store). The owner's lease renewals are its heartbeat; with the gate on, an
 * expired claim is taken over only on evidence that its owner is gone:
 *
 * - a death signal recorded by `markWorkerDead` for the owner that holds the claim, or
 * - a heartbeat older than `presumedDeadAfterMs` (default twice the lease).
 *
 *   A claims (heartbeat t0) ── paused ─────────────────────── resumes, renews ─► completes
 *   B            lease expires (t0+ttl) ─► no evidence: waits ─► sees the renewal ─► RETURN
 *
 * Pure functions of the record and a clock reading, so gates and operator actions share them.
 */

import { recordArgument } from '../invalid-argument.js';
import { isConsequential, type SideEffectClass } from '../records/envelope.js';
import type { TransitionRecord } from '../records/transition-record.js';

/**
 * Which classes need death evidence before an expired claim is taken over: `true` every class
 * (reads, idempotent tools and tasks too), `'consequential'` (the default) `keyed_mutate`,
 * `non_idempotent_mutate` and `irreversible`, `false` none (lease expiry counts as death).
 */
export type DeathSignalPolicy = boolean | 'consequential';

/** True when `policy` asks for death evidence before taking over a claim of this class. */
export function requiresDeathSignal(policy: DeathSignalPolicy, sideEffectClass: SideEffectClass): boolean {
  return policy === true || (policy === 'consequential' && isConsequential(sideEffectClass));
}

/** The default heartbeat age after which an owner is presumed dead: twice the lease (0 when unbounded). */
export function defaultPresumedDeadAfterMs(leaseTtlMs: number): number {
  return leaseTtlMs > 0 ? 2 * leaseTtlMs : 0;
}

/** Time since the owner's last heartbeat (its claim, when it never renewed). */
export function heartbeatAgeMs(record: TransitionRecord, now: number): number {
  const last = record.lastHeartbeatAt ?? record.updatedAt;
  return Math.max(0, now - last);
}

/**
 * True when a death signal was recorded for the owner that holds the claim now. Owner ids are
 * unique per claim, so a signal left on a record that was taken over since never counts.
 */
export function hasDeathSignal(record: TransitionRecord): boolean {
  const signal = record.workerDeath;
  return signal !== undefined && signal !== null && signal.owner === record.owner;
}

/** True when there is evidence the claim's owner is gone: a death signal, or a stale heartbeat. */
export function hasWorkerDeathEvidence(record: TransitionRecord, now: number, presumedDeadAfterMs: number): boolean {
  recordArgument('hasWorkerDeathEvidence', 'record', record, ['workerDeath', 'owner', 'lastHeartbeatAt', 'updatedAt']);
  return ownerIsGone(record, now, presumedDeadAfterMs);
}

/** {@link hasWorkerDeathEvidence}, for a record the ledger holds (no argument check). */
export function ownerIsGone(record: TransitionRecord, now: number, presumedDeadAfterMs: number): boolean {
  return hasDeathSignal(record) || heartbeatAgeMs(record, now) >= presumedDeadAfterMs;
}
