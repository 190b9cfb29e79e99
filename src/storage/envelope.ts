/**
 * The ledger's vocabulary: side-effect classes, their retry and spend defaults, boundaries,
 * outcomes and gates. Status sets are vocabularies: frozen objects of names with derived union types.
 */
import { isTermOf, type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';

const SIDE_EFFECT_CLASSES = [
  'read',
  'idempotent_mutate',
  'keyed_mutate',
  'non_idempotent_mutate',
  'irreversible',
] as const;
/** How a tool touches the world. */
export const SideEffectClass: Vocabulary<typeof SIDE_EFFECT_CLASSES> = vocabulary(SIDE_EFFECT_CLASSES);
/** How a tool touches the world. */
export type SideEffectClass = ValueOf<typeof SideEffectClass>;

/**
 * Names accepted in configuration for a {@link SideEffectClass}. `payment` is a payment that
 * passes no provider idempotency key (`non_idempotent_mutate`); one that does declares `keyed_mutate`.
 */
export const SIDE_EFFECT_CLASS_ALIASES: Readonly<Record<string, SideEffectClass>> = Object.freeze({
  read_only: 'read',
  idempotent_write: 'idempotent_mutate',
  external_api_mutation: 'keyed_mutate',
  payment: 'non_idempotent_mutate',
  email: 'non_idempotent_mutate',
  subagent: 'non_idempotent_mutate',
  non_idempotent_write: 'non_idempotent_mutate',
  onchain_action: 'irreversible',
});

const RETRY_PERMISSIONS = [
  'safe_retry',
  'retry_only_with_same_provider_idempotency_key',
  'manual_reconciliation_required',
  'never_retry_automatically',
] as const;
/** When a failed or abandoned attempt may run again automatically. */
export const RetryPermission: Vocabulary<typeof RETRY_PERMISSIONS> = vocabulary(RETRY_PERMISSIONS);
/** When a failed or abandoned attempt may run again automatically. */
export type RetryPermission = ValueOf<typeof RetryPermission>;

const SPENDABILITIES = ['multi_use', 'single_use', 'non_replayable'] as const;
/** How many times one transition's effect may be spent. */
export const Spendability: Vocabulary<typeof SPENDABILITIES> = vocabulary(SPENDABILITIES);
/** How many times one transition's effect may be spent. */
export type Spendability = ValueOf<typeof Spendability>;

const BOUNDARIES = ['not_crossed', 'maybe_crossed', 'crossed'] as const;
/** Whether the external effect may have happened; moves only forward. */
export const Boundary: Vocabulary<typeof BOUNDARIES> = vocabulary(BOUNDARIES);
/** Whether the external effect may have happened; moves only forward. */
export type Boundary = ValueOf<typeof Boundary>;

const OUTCOMES = [
  'IN_FLIGHT',
  'COMPLETED',
  'FAILED_BEFORE_EFFECT',
  'FAILED_AFTER_EFFECT',
  'UNKNOWN',
  'BLOCKED',
] as const;
/** Stored outcome of a transition. `EXPIRED` is derived, never stored. */
export const Outcome: Vocabulary<typeof OUTCOMES> = vocabulary(OUTCOMES);
/** Stored outcome of a transition. */
export type Outcome = ValueOf<typeof Outcome>;

const GATES = ['ALLOW', 'RETURN', 'POLL', 'RECLAIM', 'SOFT_BLOCK', 'HARD_BLOCK', 'REPAIR'] as const;
/** What the ledger does with a call that meets an existing record. */
export const Gate: Vocabulary<typeof GATES> = vocabulary(GATES);
/** What the ledger does with a call that meets an existing record. */
export type Gate = ValueOf<typeof Gate>;

/** Defaults of one side-effect class. */
export interface ClassDefaults {
  readonly retryPermission: RetryPermission;
  readonly spendability: Spendability;
}

/** Retry permission and spendability of each side-effect class. */
export const CLASS_DEFAULTS: Readonly<Record<SideEffectClass, ClassDefaults>> = Object.freeze({
  read: { retryPermission: 'safe_retry', spendability: 'multi_use' },
  idempotent_mutate: { retryPermission: 'safe_retry', spendability: 'multi_use' },
  keyed_mutate: { retryPermission: 'retry_only_with_same_provider_idempotency_key', spendability: 'single_use' },
  non_idempotent_mutate: { retryPermission: 'manual_reconciliation_required', spendability: 'single_use' },
  irreversible: { retryPermission: 'never_retry_automatically', spendability: 'non_replayable' },
});

const BOUNDARY_RANK: Readonly<Record<Boundary, number>> = { not_crossed: 0, maybe_crossed: 1, crossed: 2 };

/** The later of two boundaries: a boundary never moves backwards. */
export function advanceBoundary(current: Boundary, next: Boundary): Boundary {
  return BOUNDARY_RANK[next] > BOUNDARY_RANK[current] ? next : current;
}

/** True for a known side-effect class name (aliases excluded). */
export function isSideEffectClass(value: unknown): value is SideEffectClass {
  return isTermOf(SideEffectClass, value);
}
/** True for a known outcome. */
export function isOutcome(value: unknown): value is Outcome {
  return isTermOf(Outcome, value);
}
/** True for a known boundary. */
export function isBoundary(value: unknown): value is Boundary {
  return isTermOf(Boundary, value);
}
/** True for a known retry permission. */
export function isRetryPermission(value: unknown): value is RetryPermission {
  return isTermOf(RetryPermission, value);
}
/** True for a known spendability. */
export function isSpendability(value: unknown): value is Spendability {
  return isTermOf(Spendability, value);
}
