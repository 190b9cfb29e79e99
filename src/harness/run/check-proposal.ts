/**
 * Checking a usable final answer: the edit permission, the patch, the design spec, then the
 * candidate policies. A refusal is returned (for a validation retry), never thrown.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { sha256Hex } from '../../core/fingerprint.js';
import type { CompiledDesignSpec } from '../design/design-spec.js';
import { applyJsonPatch, JsonPatchError, type JsonValue } from '../json-patch/apply-json-patch.js';
import type { ToolOutcome } from '../tools/agent-tool.js';
import type { CandidatePolicy } from './candidate-policy.js';
import type { FinalAnswer } from './final-answer.js';
import type { RunContext } from './run-context.js';

/** An accepted proposal, or why it was refused. `fingerprint` identifies the candidate. */
export type ProposalCheck =
  | { readonly ok: true; readonly design: JsonValue; readonly changed: boolean; readonly fingerprint: string }
  | {
      readonly ok: false;
      readonly code: string;
      readonly message: string;
      readonly pointer?: string;
      readonly fingerprint: string;
    };

/** Everything a proposal is checked against. */
export interface ProposalRules {
  readonly spec: CompiledDesignSpec;
  readonly policies: readonly CandidatePolicy[];
  readonly request: string;
}

/** Check `answer` against the run's rules. */
export async function checkProposal(
  run: RunContext,
  rules: ProposalRules,
  answer: FinalAnswer,
  outcomes: readonly ToolOutcome[],
): Promise<ProposalCheck> {
  const patchPrint = sha256Hex(canonicalJson({ patch: answer.patch }));
  const refuse = (code: string, message: string, pointer?: string, fingerprint = patchPrint): ProposalCheck => ({
    ok: false,
    code,
    message,
    fingerprint,
    ...(pointer === undefined ? {} : { pointer }),
  });
  if (!run.canEdit && answer.patch !== null) {
    return refuse(
      'edit_not_allowed',
      'Editing is not allowed in this run: answer with "patch": null and give advice in "message"',
    );
  }
  let candidate = run.design;
  if (answer.patch !== null) {
    try {
      candidate = applyJsonPatch(run.design, answer.patch, run.limits.patch);
    } catch (error) {
      if (!(error instanceof JsonPatchError)) throw error;
      return refuse(`patch_${error.code}`, error.message);
    }
  }
  const candidateJson = canonicalJson(candidate);
  const fingerprint = sha256Hex(candidateJson);
  const changed = candidateJson !== canonicalJson(run.design);
  if (answer.patch !== null) {
    const check = await rules.spec.checkCandidate(candidate);
    if (!check.ok) {
      const first = check.issues[0];
      const at = first === undefined || first.pointer === '' ? 'the design' : `\`${first.pointer}\``;
      const what = check.refusal === 'round_trip' ? 'is not in its stored form at' : 'is invalid at';
      const more = check.issues.length > 1 ? ` (and ${check.issues.length - 1} more)` : '';
      return refuse(
        `design_${check.refusal}`,
        `The patched design ${what} ${at}: ${first?.message ?? 'refused'}${more}`,
        first?.pointer,
        fingerprint,
      );
    }
  }
  for (const policy of rules.policies) {
    const verdict = await policy.check({
      runId: run.runId,
      request: rules.request,
      message: answer.message,
      patch: answer.patch,
      base: run.design,
      candidate,
      changed,
      canEdit: run.canEdit,
      capabilities: run.capabilities,
      toolOutcomes: outcomes,
    });
    if (!verdict.ok) return refuse(`policy_${policy.name}`, verdict.message, verdict.pointer, fingerprint);
  }
  return { ok: true, design: candidate, changed, fingerprint };
}
