/**
 * Checking a candidate: the edit permission, the patch, the design spec, then the candidate
 * policies — for a final answer (and the render it may commit to) and before a render. A refusal
 * is returned (for a retry), never thrown.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { sha256Hex } from '../../core/fingerprint.js';
import type { CompiledDesignSpec } from '../design/design-spec.js';
import { firstDifference } from '../design/first-difference.js';
import {
  applyJsonPatch,
  JsonPatchError,
  type JsonPatchOperation,
  type JsonValue,
} from '../json-patch/apply-json-patch.js';
import type { ToolOutcome } from '../tools/agent-tool.js';
import { type CandidateContext, type CandidatePolicy, outcomeLists } from './candidate-policy.js';
import type { FinalAnswer } from './final-answer.js';
import type { RunContext } from './run-context.js';

/** A refusal: a stable code, a message for the model, maybe where. */
export interface Refusal {
  readonly ok: false;
  readonly code: string;
  readonly message: string;
  readonly pointer?: string;
}

/** An accepted proposal, or why it was refused. `fingerprint` identifies the candidate. */
export type ProposalCheck =
  | {
      readonly ok: true;
      readonly design: JsonValue;
      readonly changed: boolean;
      /** The patch returned: the answer's, or the committed render's chain. */
      readonly patch: readonly JsonPatchOperation[] | null;
      readonly fingerprint: string;
    }
  | (Refusal & { readonly fingerprint: string });

/** Everything a proposal is checked against. */
export interface ProposalRules {
  readonly spec: CompiledDesignSpec;
  readonly policies: readonly CandidatePolicy[];
  readonly request: string;
}

function refusal(code: string, message: string, pointer?: string): Refusal {
  return { ok: false, code, message, ...(pointer === undefined ? {} : { pointer }) };
}

/** Check a changed candidate against the design spec (schema, validator, exact round-trip). */
async function checkAgainstSpec(spec: CompiledDesignSpec, candidate: JsonValue): Promise<Refusal | null> {
  const check = await spec.checkCandidate(candidate);
  if (check.ok) return null;
  const first = check.issues[0];
  const at = first === undefined || first.pointer === '' ? 'the design' : `\`${first.pointer}\``;
  const what = check.refusal === 'round_trip' ? 'is not in its stored form at' : 'is invalid at';
  const more = check.issues.length > 1 ? ` (and ${check.issues.length - 1} more)` : '';
  return refusal(
    `design_${check.refusal}`,
    `The patched design ${what} ${at}: ${first?.message ?? 'refused'}${more}`,
    first?.pointer,
  );
}

/** What differs between the final answer's and a render's candidate checks. */
export type CandidateCheck = Pick<
  CandidateContext,
  'phase' | 'message' | 'patch' | 'candidate' | 'changed' | 'toolOutcomes' | 'succeededToolOutcomes'
> & {
  readonly renderRef: string | undefined;
  /** Check the candidate against the design spec first. */
  readonly checkSpec: boolean;
};

/**
 * Check a candidate against the design spec (when asked), then the candidate policies in order;
 * the first refusal wins.
 */
export async function checkCandidate(
  run: RunContext,
  rules: ProposalRules,
  { checkSpec, renderRef, ...check }: CandidateCheck,
): Promise<Refusal | null> {
  if (checkSpec) {
    const failed = await checkAgainstSpec(rules.spec, check.candidate);
    if (failed !== null) return failed;
  }
  const context: CandidateContext = {
    ...check,
    runId: run.runId,
    request: rules.request,
    ...(renderRef === undefined ? {} : { renderRef }),
    base: run.design,
    canEdit: run.canEdit,
    capabilities: run.capabilities,
    approvedAssets: run.assets.approved(),
  };
  for (const policy of rules.policies) {
    const verdict = await policy.check(context);
    if (!verdict.ok) return refusal(`policy_${policy.name}`, verdict.message, verdict.pointer);
  }
  return null;
}

/** Apply a patch to the run's design; a patch that does not apply is a refusal. */
export function applyToDesign(
  run: RunContext,
  base: JsonValue,
  patch: readonly unknown[],
  code = 'patch',
): { readonly ok: true; readonly design: JsonValue } | Refusal {
  try {
    return { ok: true, design: applyJsonPatch(base, patch, run.limits.patch) };
  } catch (error) {
    if (!(error instanceof JsonPatchError)) throw error;
    return refusal(`${code}_${error.code}`, error.message);
  }
}

/**
 * Check `answer` against the run's rules. After `commit_render`, a null patch proposes the
 * committed candidate, an equivalent patch (one giving the same design) is accepted with the
 * committed chain returned, and any other patch is refused.
 */
export async function checkProposal(
  run: RunContext,
  rules: ProposalRules,
  answer: FinalAnswer,
  outcomes: readonly ToolOutcome[],
): Promise<ProposalCheck> {
  const patchPrint = sha256Hex(canonicalJson({ patch: answer.patch }));
  const refuse = (failure: Refusal, fingerprint = patchPrint): ProposalCheck => ({ ...failure, fingerprint });
  if (!run.canEdit && answer.patch !== null) {
    return refuse(
      refusal(
        'edit_not_allowed',
        'Editing is not allowed in this run: answer with "patch": null and give advice in "message"',
      ),
    );
  }
  const committed = run.renders.committed;
  let candidate = run.design;
  if (answer.patch !== null) {
    const applied = applyToDesign(run, run.design, answer.patch);
    if (!applied.ok) return refuse(applied);
    candidate = applied.design;
  }
  let patch = answer.patch;
  if (committed !== undefined) {
    if (answer.patch === null) {
      candidate = committed.candidate;
    } else {
      const differs = firstDifference(candidate, committed.candidate);
      if (differs !== null) {
        const at = differs === '' ? 'the design' : `\`${differs}\``;
        return refuse(
          refusal(
            'conflicts_with_commit',
            `Your patch gives a different design from the committed render \`${committed.ref}\` (first difference at ${at}): answer with "patch": null to propose the committed render, or commit another render`,
            differs,
          ),
          sha256Hex(canonicalJson(candidate)),
        );
      }
    }
    patch = committed.patch;
  }
  const candidateJson = canonicalJson(candidate);
  const fingerprint = sha256Hex(candidateJson);
  const changed = candidateJson !== canonicalJson(run.design);
  const failed = await checkCandidate(run, rules, {
    phase: 'final',
    message: answer.message,
    patch,
    renderRef: committed?.ref,
    candidate,
    changed,
    ...outcomeLists(outcomes),
    checkSpec: patch !== null,
  });
  if (failed !== null) return refuse(failed, fingerprint);
  return { ok: true, design: candidate, changed, patch, fingerprint };
}
