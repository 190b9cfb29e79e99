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

/** What a side-effect class is: its defaults, and what the ledger and the guards make of it. */
export interface ClassProperties extends ClassDefaults {
  /**
   * Its effect must not happen twice: a call needs an explicit identity in production, an expired
   * claim needs evidence of the worker's death before it is taken over (by default), and an MCP call
   * runs to its end when the client cancels it.
   */
  readonly consequential: boolean;
  /** Its body may run again when its output fails validation, or it throws. */
  readonly rerunnable: boolean;
}

/** Every property of each side-effect class, in one table. */
export const CLASS_PROPERTIES: Readonly<Record<SideEffectClass, ClassProperties>> = Object.freeze({
  read: Object.freeze({
    retryPermission: 'safe_retry',
    spendability: 'multi_use',
    consequential: false,
    rerunnable: true,
  }),
  idempotent_mutate: Object.freeze({
    retryPermission: 'safe_retry',
    spendability: 'multi_use',
    consequential: false,
    rerunnable: true,
  }),
  keyed_mutate: Object.freeze({
    retryPermission: 'retry_only_with_same_provider_idempotency_key',
    spendability: 'single_use',
    consequential: true,
    rerunnable: false,
  }),
  non_idempotent_mutate: Object.freeze({
    retryPermission: 'manual_reconciliation_required',
    spendability: 'single_use',
    consequential: true,
    rerunnable: false,
  }),
  irreversible: Object.freeze({
    retryPermission: 'never_retry_automatically',
    spendability: 'non_replayable',
    consequential: true,
    rerunnable: false,
  }),
});

const classes = Object.keys(CLASS_PROPERTIES) as SideEffectClass[];

/** Retry permission and spendability of each side-effect class (read from {@link CLASS_PROPERTIES}). */
export const CLASS_DEFAULTS: Readonly<Record<SideEffectClass, ClassDefaults>> = Object.freeze(
  Object.fromEntries(
    classes.map((name) => {
      const { retryPermission, spendability } = CLASS_PROPERTIES[name];
      return [name, Object.freeze({ retryPermission, spendability })];
    }),
  ) as Record<SideEffectClass, ClassDefaults>,
);

/** The classes whose effect must not happen twice (see {@link ClassProperties.consequential}). */
export const CONSEQUENTIAL_CLASSES: ReadonlySet<SideEffectClass> = new Set(
  classes.filter((name) => CLASS_PROPERTIES[name].consequential),
);

/** True for a class whose effect must not happen twice; false for any other value. */
export function isConsequential(sideEffectClass: string): boolean {
  return isSideEffectClass(sideEffectClass) && CLASS_PROPERTIES[sideEffectClass].consequential;
}

/** Classes whose body may run again when its output fails validation (or it throws). */
export function isRerunnable(sideEffectClass: SideEffectClass): boolean {
  return CLASS_PROPERTIES[sideEffectClass].rerunnable;
}

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
