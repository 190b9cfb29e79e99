/**
 * Pure gate resolvers: what a call does when it meets an existing record.
 *
 * Both are total functions of (record, attempt, now) — no I/O, no hidden clock — so every row of
 * the gate tables is unit-tested and replayable.
 */
import { InvalidArgumentError, kindOf, recordArgument, unreadableArgument } from '../invalid-argument.js';
import {
  type Gate,
  isBoundary,
  isOutcome,
  isRetryPermission,
  isSideEffectClass,
  isSpendability,
} from '../records/envelope.js';
import type { TransitionRecord } from '../records/transition-record.js';
import type { ToolCapability } from './tool-capability.js';

/** What the incoming call brings to the gate. */
export interface GateAttempt {
  /** The provider idempotency key the call carries, or null. */
  readonly providerIdempotencyKey: string | null;
  /** Whether the tool declares a provider idempotency-key parameter. */
  readonly providerKeyParamDeclared: boolean;
  /** Opt-in window (ms from the first attempt) in which an UNKNOWN keyed call may retry with the same key. */
  readonly providerIdempotencyKeyTtlMs?: number;
  /** The tool's capability; `blind` never retries an ambiguous (UNKNOWN) record. Default derived, never blind. */
  readonly capability?: ToolCapability;
}

/** A gate and the rule that chose it. */
export interface GateDecision {
  readonly gate: Gate;
  readonly reason: string;
}

/** True when the record's lease has passed (`now >= leaseUntil`); an unbounded lease never expires. */
export function isLeaseExpired(record: Pick<TransitionRecord, 'leaseUntil'>, now: number): boolean {
  recordArgument('isLeaseExpired', 'record', record, ['leaseUntil']);
  return leaseHasPassed(record, now);
}

/** True for IN_FLIGHT records whose lease has passed: the derived EXPIRED outcome. */
export function isExpired(record: Pick<TransitionRecord, 'outcome' | 'leaseUntil'>, now: number): boolean {
  recordArgument('isExpired', 'record', record, ['outcome', 'leaseUntil']);
  return claimHasExpired(record, now);
}

// The ledger's own callers, inside the checked boundary: a record it read or wrote itself is not
// checked again on every call.

/** {@link isLeaseExpired}, for a record the ledger holds (no argument check). */
export function leaseHasPassed(record: Pick<TransitionRecord, 'leaseUntil'>, now: number): boolean {
  return record.leaseUntil !== null && now >= record.leaseUntil;
}

/** {@link isExpired}, for a record the ledger holds (no argument check). */
export function claimHasExpired(record: Pick<TransitionRecord, 'outcome' | 'leaseUntil'>, now: number): boolean {
  return record.outcome === 'IN_FLIGHT' && leaseHasPassed(record, now);
}

/**
 * Why a record cannot be trusted as it stands, or null when it is complete.
 *
 * A record missing its vocabulary fields, or holding values outside it, is routed to REPAIR:
 * ambiguity never resolves to running the side effect.
 */
export function findIncompleteField(record: TransitionRecord): string | null {
  const r = record as Partial<Record<keyof TransitionRecord, unknown>>;
  if (typeof r.key !== 'string' || r.key === '') return 'key';
  if (typeof r.tool !== 'string' || r.tool === '') return 'tool';
  if (!isOutcome(r.outcome)) return 'outcome';
  if (!isBoundary(r.boundary)) return 'boundary';
  if (!isSideEffectClass(r.sideEffectClass)) return 'sideEffectClass';
  if (!isRetryPermission(r.retryPermission)) return 'retryPermission';
  if (!isSpendability(r.spendability)) return 'spendability';
  if (!Number.isInteger(r.version) || !Number.isInteger(r.fence)) return 'version';
  if (r.leaseUntil !== null && !Number.isFinite(r.leaseUntil)) return 'leaseUntil';
  if (typeof r.firstAttemptAt !== 'number') return 'firstAttemptAt';
  if (r.outcome === 'IN_FLIGHT' && (typeof r.owner !== 'string' || r.owner === '')) return 'owner';
  // A failure "before the effect" with a boundary already moved contradicts itself.
  if (r.outcome === 'FAILED_BEFORE_EFFECT' && r.boundary === 'maybe_crossed') return 'boundary';
  return null;
}

function decide(gate: Gate, reason: string): GateDecision {
  return { gate, reason };
}

/**
 * Gate for side-effecting classes (everything but `read`), of a complete record.
 *
 * @example
 * resolveSideEffectGate(record, { providerIdempotencyKey: null, providerKeyParamDeclared: false }, Date.now());
 */
function sideEffectGate(record: TransitionRecord, attempt: GateAttempt, now: number): GateDecision {
  switch (record.outcome) {
    case 'COMPLETED':
      return decide('RETURN', 'completed: the stored result is returned, never re-spent');
    case 'IN_FLIGHT': {
      if (!leaseHasPassed(record, now)) {
        return decide(
          'POLL',
          record.leaseUntil === null ? 'in flight with an unbounded lease' : 'in flight, lease held',
        );
      }
      if (record.boundary !== 'not_crossed') {
        return decide('HARD_BLOCK', `expired while the boundary was \`${record.boundary}\``);
      }
      if (record.spendability === 'single_use' || record.spendability === 'non_replayable') {
        return decide('HARD_BLOCK', `expired and the effect is \`${record.spendability}\``);
      }
      if (record.retryPermission === 'safe_retry') {
        return decide('ALLOW', 'expired before the boundary; multi_use and safe_retry allow a reclaim');
      }
      return decide('HARD_BLOCK', `expired and retry permission is \`${record.retryPermission}\``);
    }
    case 'BLOCKED':
      return decide('HARD_BLOCK', 'blocked');
    case 'UNKNOWN':
      if (attempt.capability === 'blind')
        return decide('HARD_BLOCK', 'unknown, and the tool is `blind`: never retried');
      return sameProviderKeyWindow(record, attempt, now)
        ? decide('ALLOW', 'unknown, retried with the same provider idempotency key inside its window')
        : decide('HARD_BLOCK', 'the outcome of an earlier attempt is unknown');
    case 'FAILED_AFTER_EFFECT':
      return decide('HARD_BLOCK', 'failed after the effect crossed its boundary');
    case 'FAILED_BEFORE_EFFECT':
      return resolveFailedBeforeEffect(record, attempt);
  }
}

function sameProviderKeyWindow(record: TransitionRecord, attempt: GateAttempt, now: number): boolean {
  const ttl = attempt.providerIdempotencyKeyTtlMs;
  return (
    record.retryPermission === 'retry_only_with_same_provider_idempotency_key' &&
    ttl !== undefined &&
    ttl > 0 &&
    attempt.providerIdempotencyKey !== null &&
    attempt.providerIdempotencyKey === record.providerIdempotencyKey &&
    now < record.firstAttemptAt + ttl
  );
}

function resolveFailedBeforeEffect(record: TransitionRecord, attempt: GateAttempt): GateDecision {
  if (record.boundary !== 'not_crossed') return decide('HARD_BLOCK', 'the boundary was crossed');
  switch (record.retryPermission) {
    case 'never_retry_automatically':
    case 'manual_reconciliation_required':
      return decide('HARD_BLOCK', `retry permission is \`${record.retryPermission}\``);
    case 'retry_only_with_same_provider_idempotency_key':
      if (!attempt.providerKeyParamDeclared) {
        return decide('ALLOW', 'no provider key parameter is declared: cooperative retry');
      }
      if (attempt.providerIdempotencyKey === null || record.providerIdempotencyKey === null) {
        return decide('HARD_BLOCK', 'a keyed retry needs the provider idempotency key on both attempts');
      }
      return attempt.providerIdempotencyKey === record.providerIdempotencyKey
        ? decide('ALLOW', 'failed before the effect; same provider idempotency key')
        : decide('HARD_BLOCK', 'the provider idempotency key differs from the first attempt');
    case 'safe_retry':
      return decide('ALLOW', 'failed before the effect; safe to retry');
  }
}

/** Gate for the `read` class, of a complete record: reads may retry; only UNKNOWN and BLOCKED ask for a decision. */
function readGate(record: TransitionRecord, attempt: GateAttempt, now: number): GateDecision {
  switch (record.outcome) {
    case 'COMPLETED':
      return decide('RETURN', 'completed read');
    case 'IN_FLIGHT':
      return leaseHasPassed(record, now) ? decide('RECLAIM', 'expired read') : decide('POLL', 'read in flight');
    case 'FAILED_BEFORE_EFFECT':
    case 'FAILED_AFTER_EFFECT':
      return decide('RECLAIM', 'failed read');
    case 'UNKNOWN':
    case 'BLOCKED':
      if (record.outcome === 'UNKNOWN' && attempt.capability === 'blind') {
        return decide('HARD_BLOCK', 'read with outcome `UNKNOWN`, and the tool is `blind`: never retried');
      }
      return decide('SOFT_BLOCK', `read with outcome \`${record.outcome}\``);
  }
}

type GateTable = (record: TransitionRecord, attempt: GateAttempt, now: number) => GateDecision;

/** The gate of a record's class. */
function classGate(record: TransitionRecord, attempt: GateAttempt, now: number): GateDecision {
  return record.sideEffectClass === 'read' ? readGate(record, attempt, now) : sideEffectGate(record, attempt, now);
}

/**
 * `table`'s gate for checked arguments: REPAIR for an incomplete record, whatever its class; a record
 * that cannot be read is refused by the name of `fn`.
 */
function resolveBy(
  fn: string,
  table: GateTable,
  record: TransitionRecord,
  attempt: GateAttempt,
  now: number,
): GateDecision {
  checkGateArguments(fn, record, attempt, now);
  try {
    const incomplete = findIncompleteField(record);
    if (incomplete !== null) return decide('REPAIR', `record field \`${incomplete}\` is missing or invalid`);
    return table(record, attempt, now);
  } catch (cause) {
    return unreadableArgument(fn, 'record', cause);
  }
}

/** The resolver for a record's class. */
export function resolveGate(record: TransitionRecord, attempt: GateAttempt, now: number): GateDecision {
  return resolveBy('resolveGate', classGate, record, attempt, now);
}

/**
 * {@link resolveGate} for a record the ledger read and an attempt it built (no argument checks); a
 * record that is incomplete is still routed to REPAIR.
 */
export function gateFor(record: TransitionRecord, attempt: GateAttempt, now: number): GateDecision {
  const incomplete = findIncompleteField(record);
  if (incomplete !== null) return decide('REPAIR', `record field \`${incomplete}\` is missing or invalid`);
  return classGate(record, attempt, now);
}

/** The arguments every resolver takes, refused by name when they are not a record, an attempt and a time. */
function checkGateArguments(fn: string, record: unknown, attempt: unknown, now: unknown): void {
  if (typeof record !== 'object' || record === null || Array.isArray(record))
    throw new InvalidArgumentError(fn, 'record', `must be a transition record, got ${kindOf(record)}`);
  if (typeof attempt !== 'object' || attempt === null || Array.isArray(attempt))
    throw new InvalidArgumentError(fn, 'attempt', `must be an object, got ${kindOf(attempt)}`);
  if (typeof now !== 'number' || !Number.isFinite(now))
    throw new InvalidArgumentError(fn, 'now', `must be a finite number of ms, got ${kindOf(now)}`);
}

/** Gate for the `read` class: reads may retry; only UNKNOWN and BLOCKED ask for a decision. */
export function resolveReadGate(record: TransitionRecord, attempt: GateAttempt, now: number): GateDecision {
  return resolveBy('resolveReadGate', readGate, record, attempt, now);
}

/** Gate for every class but `read` (see {@link resolveGate}). */
export function resolveSideEffectGate(record: TransitionRecord, attempt: GateAttempt, now: number): GateDecision {
  return resolveBy('resolveSideEffectGate', sideEffectGate, record, attempt, now);
}
