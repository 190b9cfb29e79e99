/**
 * The decision protocol: the verdicts of the use-time checks that let a call's body run, written on
 * its transition record by the very write that claims it, and the effect state derived from it.
 *
 * The claim and its decision are one compare-and-set, so a decision can never drift from the
 * attempt it authorised: the body of an attempt runs only after both are durable.
 */
import { fingerprint } from '../core/fingerprint.js';
import { arrayArgument, recordArgument, unreadableArgument } from '../invalid-argument.js';
import type { TransitionRecord } from './transition-record.js';

/** What one check said about a call. */
export const CheckVerdict = {
  allow: 'allow',
  deny: 'deny',
} as const;
/** What one check said about a call. */
export type CheckVerdict = (typeof CheckVerdict)[keyof typeof CheckVerdict];

/** One check's verdict, as recorded: a name, allow or deny, and a short reason (never arguments). */
export interface DecisionVerdict {
  /** The check: `registry`, `fuses`, `arguments`, `approval`, `ledger`, or a caller's own name. */
  readonly check: string;
  readonly verdict: CheckVerdict;
  readonly reason?: string;
}

/** The decision recorded with a claim: every check's verdict, in the order they ran. */
export interface TransitionDecision {
  /** True only when every verdict allows. */
  readonly allowed: boolean;
  readonly verdicts: readonly DecisionVerdict[];
  /** The reasons (else the check names) of the verdicts that deny, in order. */
  readonly deniedReasons: readonly string[];
  /** Epoch ms (ledger clock) of the claim that wrote it; absent on a decision composed elsewhere. */
  readonly at?: number;
}

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
export type EffectState = (typeof EffectState)[keyof typeof EffectState];

/** Most verdicts a decision keeps; later ones are folded into one `truncated` verdict. */
export const MAX_DECISION_VERDICTS = 32;
/** Longest check name kept. */
export const MAX_CHECK_NAME_LENGTH = 64;
/** Longest reason kept. */
export const MAX_REASON_LENGTH = 300;

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

/** Why a stored decision is not one, or null when it is. */
export function decisionShapeProblem(value: unknown): string | null {
  try {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return 'not a JSON object';
    const d = value as Partial<Record<keyof TransitionDecision, unknown>>;
    if (typeof d.allowed !== 'boolean') return '`allowed` is not a boolean';
    if (!Array.isArray(d.verdicts)) return '`verdicts` is not an array';
    if (!Array.isArray(d.deniedReasons) || d.deniedReasons.some((reason) => typeof reason !== 'string'))
      return '`deniedReasons` is not an array of strings';
    let denies = false;
    for (const item of d.verdicts as unknown[]) {
      const v = item as Partial<Record<keyof DecisionVerdict, unknown>> | null;
      if (v === null || typeof v !== 'object' || typeof v.check !== 'string' || v.check === '')
        return 'a verdict has no `check`';
      if (v.verdict !== CheckVerdict.allow && v.verdict !== CheckVerdict.deny)
        return `check \`${v.check}\` has no known \`verdict\``;
      if (v.reason !== undefined && typeof v.reason !== 'string')
        return `check \`${v.check}\` has a reason that is not text`;
      if (v.verdict === CheckVerdict.deny) denies = true;
    }
    if (d.allowed === denies) return '`allowed` disagrees with the verdicts';
    if (d.at !== undefined && (typeof d.at !== 'number' || !Number.isFinite(d.at))) return '`at` is not a time';
    return null;
  } catch (cause) {
    return unreadableArgument('decisionShapeProblem', 'value', cause);
  }
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
