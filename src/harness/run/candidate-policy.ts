/**
 * Candidate policies: application rules a proposal must meet before it is returned.
 */
import type { ApprovedAsset } from '../assets/asset-provider.js';
import type { JsonPatchOperation, JsonValue } from '../json-patch/apply-json-patch.js';
import type { ToolOutcome } from '../tools/agent-tool.js';

/**
 * When a policy runs: `render` before a candidate is rendered (`render_design`), `final` on the
 * final answer (after a commit too).
 */
export type CandidatePhase = 'render' | 'final';

/** What a candidate policy sees: the proposal, the design before and after, and every tool outcome of the run. */
export interface CandidateContext {
  readonly runId: string;
  readonly phase: CandidatePhase;
  readonly request: string;
  /** The final answer's message (`''` in the `render` phase). */
  readonly message: string;
  /** Relative to `base`: the final patch, or a render's whole composed chain. */
  readonly patch: readonly JsonPatchOperation[] | null;
  /** The render the candidate comes from: the base of a render, or the committed render of a final answer. */
  readonly renderRef?: string;
  /** The trusted design the patch applies to. */
  readonly base: JsonValue;
  /** The design with the patch applied, already valid against the design spec. */
  readonly candidate: JsonValue;
  readonly changed: boolean;
  readonly canEdit: boolean;
  readonly capabilities: readonly string[];
  /** Every tool outcome of the run so far, in order. */
  readonly toolOutcomes: readonly ToolOutcome[];
  /** The outcomes that succeeded: the authorization-safe subset (results that really came back). */
  readonly succeededToolOutcomes: readonly ToolOutcome[];
  /** Assets found by this run's asset searches, with provenance: what a candidate may use. */
  readonly approvedAssets: readonly ApprovedAsset[];
}

/** A policy's verdict; a refusal's `message` is shown to the model, which may try again. */
export type CandidateVerdict =
  | { readonly ok: true }
  | { readonly ok: false; readonly message: string; readonly pointer?: string };

/**
 * A rule every proposal must meet, checked after the design spec accepted it (null patches
 * included). Policies run in order; the first refusal counts as a validation retry.
 *
 * @example
 * const checkedContrast: CandidatePolicy = {
 *   name: 'contrast-checked',
 *   check: ({ changed, toolOutcomes }) =>
 *     !changed || toolOutcomes.some((o) => o.tool === 'check_contrast' && o.status === 'succeeded')
 *       ? { ok: true }
 *       : { ok: false, message: 'Run check_contrast on the changed colors before proposing' },
 * };
 */
export interface CandidatePolicy {
  readonly name: string;
  check(context: CandidateContext): CandidateVerdict | Promise<CandidateVerdict>;
}

/** A run's outcomes, all of them and the succeeded subset, as a candidate context carries them. */
export function outcomeLists(
  outcomes: readonly ToolOutcome[],
): Pick<CandidateContext, 'toolOutcomes' | 'succeededToolOutcomes'> {
  return {
    toolOutcomes: outcomes,
    succeededToolOutcomes: outcomes.filter((outcome) => outcome.status === 'succeeded'),
  };
}
