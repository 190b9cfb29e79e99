/**
 * The decision protocol: the verdicts of the use-time checks that let a call's body run, written on
 * its transition record by the very write that claims it, and the effect state derived from it.
 *
 * The claim and its decision are one compare-and-set, so a decision can never drift from the
 * attempt it authorised: the body of an attempt runs only after both are durable.
 */
import { fingerprint } from '../core/fingerprint.js';
import type { ValueOf } from '../core/vocabulary.js';
import { arrayArgument, recordArgument } from '../invalid-argument.js';
import {
  CheckVerdict,
  type DecisionVerdict,
  MAX_CHECK_NAME_LENGTH,
  MAX_DECISION_VERDICTS,
  MAX_REASON_LENGTH,
  type TransitionDecision,
} from '../records/decision.js';
import type { TransitionRecord } from '../records/transition-record.js';

/**
 * Where a record's effect is in the protocol:
 * `INTENDED → ATTEMPTING → COMMITTED | ABORTED | UNKNOWN`.
 */
export const EffectState = {
  /** Claimed, no decision recorded (a record written before the protocol): nothing attempted yet. */
  INTENDED: 'INTENDED',
  /** The decision allowed the body; it runs, or ran and its outcome is not written yet. */
  ATTEMPTING: 'ATTEMPTING',
  /** The effect happened once and its result is recorded. */
  COMMITTED: 'COMMITTED',
  /** Nothing happened: the decision denied, or the body failed before its boundary. */
  ABORTED: 'ABORTED',
  /** The effect may or may not have happened: only a reconcile or an operator can tell. */
  UNKNOWN: 'UNKNOWN',
} as const;
/** Where a record's effect is in the protocol. */
export type EffectState = ValueOf<typeof EffectState>;

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

function boundedVerdict(verdict: DecisionVerdict): DecisionVerdict {
  const check = clip(String(verdict.check), MAX_CHECK_NAME_LENGTH);
  const allowed = verdict.verdict === CheckVerdict.allow;
  const reason = typeof verdict.reason === 'string' && verdict.reason !== '' ? verdict.reason : undefined;
  // Anything but an explicit allow denies: a check that says nothing known does not let a call run.
  return Object.freeze({
    check,
    verdict: allowed ? CheckVerdict.allow : CheckVerdict.deny,
    ...(reason === undefined ? {} : { reason: clip(reason, MAX_REASON_LENGTH) }),
  });
}

/**
 * Compose the decision of a list of verdicts: allowed when every verdict allows (an empty list
 * allows), bounded in size (at most {@link MAX_DECISION_VERDICTS} verdicts, clipped names and
 * reasons), frozen.
 *
 * @example
 * const decision = composeDecision([
 *   { check: 'fuses', verdict: 'allow' },
 *   { check: 'approval', verdict: 'deny', reason: 'nobody approved `send_payment`' },
 * ]);
 * decision.allowed; // false
 * decision.deniedReasons; // ['nobody approved `send_payment`']
 */
export function composeDecision(verdicts: readonly DecisionVerdict[]): TransitionDecision {
  arrayArgument('composeDecision', 'verdicts', verdicts);
  return composedOf(verdicts);
}

/** {@link composeDecision}, for verdicts the ledger built itself (no argument check). */
export function composedOf(verdicts: readonly DecisionVerdict[]): TransitionDecision {
  let kept = verdicts.map(boundedVerdict);
  if (kept.length > MAX_DECISION_VERDICTS) {
    const dropped = kept.slice(MAX_DECISION_VERDICTS - 1);
    const denies = dropped.some((verdict) => verdict.verdict === CheckVerdict.deny);
    kept = [
      ...kept.slice(0, MAX_DECISION_VERDICTS - 1),
      boundedVerdict({
        check: 'truncated',
        verdict: denies ? CheckVerdict.deny : CheckVerdict.allow,
        reason: `${dropped.length} more verdicts (${dropped.map((verdict) => verdict.check).join(', ')})`,
      }),
    ];
  }
  const denied = kept.filter((verdict) => verdict.verdict === CheckVerdict.deny);
  return Object.freeze({
    allowed: denied.length === 0,
    verdicts: Object.freeze(kept),
    deniedReasons: Object.freeze(denied.map((verdict) => verdict.reason ?? verdict.check)),
  });
}

/**
 * The effect state of a record: a pure function of its outcome, boundary and decision, so it is
 * never a second source of truth. Liveness (an expired lease) is another axis and is not read:
 * the state says where the effect is, not whether its worker is alive. Gates never read it.
 *
 * | outcome | boundary | decision | effect state |
 * | --- | --- | --- | --- |
 * | `COMPLETED` | any | any | `COMMITTED` |
 * | `UNKNOWN`, `FAILED_AFTER_EFFECT` | any | any | `UNKNOWN` |
 * | `FAILED_BEFORE_EFFECT`, `BLOCKED` | `maybe_crossed`, `crossed` | any | `UNKNOWN` |
 * | `FAILED_BEFORE_EFFECT`, `BLOCKED` | `not_crossed` | any | `ABORTED` |
 * | `IN_FLIGHT` | `maybe_crossed`, `crossed` | denied | `UNKNOWN` |
 * | `IN_FLIGHT` | `maybe_crossed`, `crossed` | allowed or none | `ATTEMPTING` |
 * | `IN_FLIGHT` | `not_crossed` | denied | `ABORTED` |
 * | `IN_FLIGHT` | `not_crossed` | allowed | `ATTEMPTING` |
 * | `IN_FLIGHT` | `not_crossed` | none (an older record) | `INTENDED` |
 * | anything else | | | `UNKNOWN` (fail closed) |
 *
 * @example
 * effectStateOf(await ledger.get(key)); // 'COMMITTED'
 */
export function effectStateOf(
  record: Pick<TransitionRecord, 'outcome' | 'boundary'> & { readonly decision?: TransitionDecision | null },
): EffectState {
  recordArgument('effectStateOf', 'record', record, ['outcome', 'boundary', 'decision']);
  const crossedMaybe = record.boundary === 'maybe_crossed' || record.boundary === 'crossed';
  switch (record.outcome) {
    case 'COMPLETED':
      return EffectState.COMMITTED;
    case 'UNKNOWN':
    case 'FAILED_AFTER_EFFECT':
      return EffectState.UNKNOWN;
    case 'FAILED_BEFORE_EFFECT':
    case 'BLOCKED':
      return crossedMaybe ? EffectState.UNKNOWN : EffectState.ABORTED;
    case 'IN_FLIGHT': {
      const decision = record.decision ?? null;
      const denied = decision !== null && decision.allowed === false;
      // A boundary crossed under a denying decision contradicts itself: it may have happened.
      if (crossedMaybe) return denied ? EffectState.UNKNOWN : EffectState.ATTEMPTING;
      if (denied) return EffectState.ABORTED;
      return decision !== null ? EffectState.ATTEMPTING : EffectState.INTENDED;
    }
    default:
      return EffectState.UNKNOWN;
  }
}

/** SHA-256 hex of a decision's canonical JSON: what a receipt carries as `decisionHash`. */
export function decisionDigest(decision: TransitionDecision): string {
  return fingerprint(decision);
}
