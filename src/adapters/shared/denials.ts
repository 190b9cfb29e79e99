/**
 * The denial record of a call the pipeline refused: the refusal is handed to the ledger as a
 * denying verdict, which writes the record under a key of its own (the transition stays
 * unclaimed) and raises `decision_denied`. The pipeline's own refusal is what the caller gets.
 */
import { refusedBody } from '../../ledger/denial-verdicts.js';
import type { Ledger } from '../../ledger/types.js';
import type { DecisionVerdict } from '../../records/decision.js';
import type { LedgerScope } from '../../records/transition-record.js';
import type { ToolPlan } from './tool-plan.js';

/** The call a denial is written for. */
export interface DeniedCall {
  readonly ledger: Ledger | undefined;
  readonly plan: ToolPlan;
  readonly scope: LedgerScope;
  readonly id: string | undefined;
  readonly args: unknown;
}

/**
 * Write the denial of `call` when it goes through a ledger (a ledgered tool in a pipeline with a
 * ledger). Never throws: a denial the store could not take is reported by the ledger's logger and
 * `onEvent` hook, and the refusal stands either way.
 */
export async function recordDenial(call: DeniedCall, verdicts: readonly DecisionVerdict[]): Promise<void> {
  const { ledger, plan } = call;
  if (ledger === undefined || plan.ledgerSpec === null) return;
  if (!verdicts.some((verdict) => verdict.verdict === 'deny')) return;
  try {
    await ledger.tool(plan.ledgerSpec, refusedBody)(call.args, {
      scope: call.scope,
      verdicts,
      ...(call.id === undefined ? {} : { toolCallId: call.id }),
    });
  } catch {
    // `decision_denied`, as intended; anything else (arguments with no JSON form) leaves no record.
  }
}
