/**
 * The decision a transition record carries: the verdicts of the use-time checks that let the body
 * of its attempt run, as the stores keep it. What a decision means for the effect is ledger policy
 * (`ledger/decision.ts`).
 */
import { type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';

const CHECK_VERDICTS = ['allow', 'deny'] as const;
/** What one check said about a call. */
export const CheckVerdict: Vocabulary<typeof CHECK_VERDICTS> = vocabulary(CHECK_VERDICTS);
/** What one check said about a call. */
export type CheckVerdict = ValueOf<typeof CheckVerdict>;

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

/** Most verdicts a decision keeps; later ones are folded into one `truncated` verdict. */
export const MAX_DECISION_VERDICTS = 32;
/** Longest check name kept. */
export const MAX_CHECK_NAME_LENGTH = 64;
/** Longest reason kept. */
export const MAX_REASON_LENGTH = 300;

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
  } catch {
    // A getter or Proxy trap that throws: a value that cannot be read is not a decision.
    return 'cannot be read';
  }
}
