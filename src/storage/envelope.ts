/**
 * The ledger's vocabulary: side-effect classes, their retry and spend defaults, boundaries,
 * outcomes and gates. Status sets are `as const` objects with derived union types.
 */
/** How a tool touches the world. */
export const SideEffectClass = {
  read: 'read',
  idempotent_mutate: 'idempotent_mutate',
  keyed_mutate: 'keyed_mutate',
  non_idempotent_mutate: 'non_idempotent_mutate',
  irreversible: 'irreversible',
} as const;
/** How a tool touches the world. */
export type SideEffectClass = (typeof SideEffectClass)[keyof typeof SideEffectClass];

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

/** When a failed or abandoned attempt may run again automatically. */
export const RetryPermission = {
  safe_retry: 'safe_retry',
  retry_only_with_same_provider_idempotency_key: 'retry_only_with_same_provider_idempotency_key',
  manual_reconciliation_required: 'manual_reconciliation_required',
  never_retry_automatically: 'never_retry_automatically',
} as const;
/** When a failed or abandoned attempt may run again automatically. */
export type RetryPermission = (typeof RetryPermission)[keyof typeof RetryPermission];

/** How many times one transition's effect may be spent. */
export const Spendability = {
  multi_use: 'multi_use',
  single_use: 'single_use',
  non_replayable: 'non_replayable',
} as const;
/** How many times one transition's effect may be spent. */
export type Spendability = (typeof Spendability)[keyof typeof Spendability];

/** Whether the external effect may have happened; moves only forward. */
export const Boundary = {
  not_crossed: 'not_crossed',
  maybe_crossed: 'maybe_crossed',
  crossed: 'crossed',
} as const;
/** Whether the external effect may have happened; moves only forward. */
export type Boundary = (typeof Boundary)[keyof typeof Boundary];

/** Stored outcome of a transition. `EXPIRED` is derived, never stored. */
export const Outcome = {
  IN_FLIGHT: 'IN_FLIGHT',
  COMPLETED: 'COMPLETED',
  FAILED_BEFORE_EFFECT: 'FAILED_BEFORE_EFFECT',
  FAILED_AFTER_EFFECT: 'FAILED_AFTER_EFFECT',
  UNKNOWN: 'UNKNOWN',
  BLOCKED: 'BLOCKED',
} as const;
/** Stored outcome of a transition. */
export type Outcome = (typeof Outcome)[keyof typeof Outcome];

/** What the ledger does with a call that meets an existing record. */
export const Gate = {
  ALLOW: 'ALLOW',
  RETURN: 'RETURN',
  POLL: 'POLL',
  RECLAIM: 'RECLAIM',
  SOFT_BLOCK: 'SOFT_BLOCK',
  HARD_BLOCK: 'HARD_BLOCK',
  REPAIR: 'REPAIR',
} as const;
/** What the ledger does with a call that meets an existing record. */
export type Gate = (typeof Gate)[keyof typeof Gate];

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

function isMember<T extends string>(set: Readonly<Record<string, T>>, value: unknown): value is T {
  return typeof value === 'string' && Object.hasOwn(set, value) && set[value] === value;
}

/** True for a known side-effect class name (aliases excluded). */
export function isSideEffectClass(value: unknown): value is SideEffectClass {
  return isMember(SideEffectClass, value);
}
/** True for a known outcome. */
export function isOutcome(value: unknown): value is Outcome {
  return isMember(Outcome, value);
}
/** True for a known boundary. */
export function isBoundary(value: unknown): value is Boundary {
  return isMember(Boundary, value);
}
/** True for a known retry permission. */
export function isRetryPermission(value: unknown): value is RetryPermission {
  return isMember(RetryPermission, value);
}
/** True for a known spendability. */
export function isSpendability(value: unknown): value is Spendability {
  return isMember(Spendability, value);
}
