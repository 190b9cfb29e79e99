/**
 * The verdicts a caller hands the ledger with a call (`CallOptions.verdicts`), read before
 * anything is claimed, and the ledger's own verdict that closes every decision.
 */
import { InvalidOptionError, LedgerError } from '../errors.js';
import { CheckVerdict, type DecisionVerdict, type TransitionDecision } from '../records/decision.js';
import { composedOf } from './decision.js';

/** A call whose caller's checks denied it: nothing was claimed and the body did not run. */
export class LedgerDecisionDeniedError extends LedgerError {
  readonly tool: string;
  readonly decision: TransitionDecision;

  constructor(tool: string, decision: TransitionDecision, options: { readonly cause?: unknown } = {}) {
    super(`The call to \`${tool}\` was NOT executed: its checks denied it (${decision.deniedReasons.join('; ')})`, {
      ...options,
      code: 'decision_denied',
      llmMessage: `The call to \`${tool}\` was NOT executed: it was refused by a check. Do not retry it as it is`,
    });
    this.tool = tool;
    this.decision = decision;
  }
}

/**
 * The caller's verdicts of one call, checked and copied: an array of `{ check, verdict, reason? }`.
 * A malformed list is an `invalid_option`. Whether they deny is the caller's to compose (a denying
 * list writes a denial record, then raises {@link LedgerDecisionDeniedError}).
 */
export function readCallerVerdicts(tool: string, value: unknown): readonly DecisionVerdict[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    throw new InvalidOptionError('verdicts', `Tool \`${tool}\`: \`verdicts\` must be an array of check verdicts`);
  const verdicts = value.map((item: unknown, index): DecisionVerdict => {
    const v = item as Partial<DecisionVerdict> | null;
    const known = v?.verdict === CheckVerdict.allow || v?.verdict === CheckVerdict.deny;
    if (v === null || typeof v !== 'object' || typeof v.check !== 'string' || v.check === '' || !known)
      throw new InvalidOptionError(
        `verdicts[${index}]`,
        `Tool \`${tool}\`: \`verdicts[${index}]\` must be \`{ check, verdict: 'allow' | 'deny', reason? }\``,
      );
    return typeof v.reason === 'string'
      ? { check: v.check, verdict: v.verdict as CheckVerdict, reason: v.reason }
      : { check: v.check, verdict: v.verdict as CheckVerdict };
  });
  return verdicts;
}

// The ledger's own part of a decision, per claim reason: a claim with no caller verdicts (nearly
// every call) then builds one small object. The reasons are the ledger's own texts, a bounded set.
const LEDGER_ONLY = new Map<string, TransitionDecision>();
const LEDGER_ONLY_LIMIT = 64;

function ledgerOnly(claim: string): TransitionDecision {
  let decision = LEDGER_ONLY.get(claim);
  if (decision === undefined) {
    decision = composedOf([{ check: 'ledger', verdict: CheckVerdict.allow, reason: claim }]);
    if (LEDGER_ONLY.size < LEDGER_ONLY_LIMIT) LEDGER_ONLY.set(claim, decision);
  }
  return decision;
}

/**
 * The decision a claim written at `at` carries: the caller's verdicts, then the ledger's own,
 * which names the claim. Deep-frozen plain data.
 */
export function claimDecision(
  callerVerdicts: readonly DecisionVerdict[],
  claim: string,
  at: number,
): TransitionDecision {
  const decision =
    callerVerdicts.length === 0
      ? ledgerOnly(claim)
      : composedOf([...callerVerdicts, { check: 'ledger', verdict: CheckVerdict.allow, reason: claim }]);
  return Object.freeze({
    allowed: decision.allowed,
    verdicts: decision.verdicts,
    deniedReasons: decision.deniedReasons,
    at,
  });
}
