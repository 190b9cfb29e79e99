/**
 * The built-in `render_design` tool, offered when the harness has a renderer and a vision model:
 * render a candidate (the current design patched, or an earlier render patched further) and
 * have the vision model review it. Every render is checked like a proposal before it is made.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { deepFreeze } from '../../core/deep-freeze.js';
import { firstDifference } from '../design/first-difference.js';
import type { JsonPatchOperation, JsonValue } from '../json-patch/apply-json-patch.js';
import { type ResolvedLimits, visionToolTimeoutMs } from '../limits.js';
import type { VisionImage } from '../models/types.js';
import { outcomeLists } from '../run/candidate-policy.js';
import { applyToDesign, checkCandidate, type ProposalRules } from '../run/check-proposal.js';
import { OPERATION_SCHEMA } from '../run/contract.js';
import { DeadlineExceededError, withinDeadline } from '../run/race.js';
import type { RunContext } from '../run/run-context.js';
import type { CheckedArtifact } from '../visual/check-artifact.js';
import { RENDER_REF_PATTERN, type RenderRecord } from '../visual/render-store.js';
import type { Renderer } from '../visual/renderer.js';
import { questionsFor, reviewVisually, type VisionSetup } from '../visual/review-visually.js';
import { type AgentTool, type ToolBody, type ToolContext, unbound } from './agent-tool.js';
import { usableArtifact } from './artifact-errors.js';
import { chargeCall } from './call-charge.js';
import { questionsSchema } from './inspect-visual.js';
import { ToolCallError, unknownRefError } from './tool-call-error.js';

/** Name of the built-in render tool. */
export const RENDER_DESIGN = 'render_design';

/** The input of `render_design`. */
interface RenderInput {
  readonly patch: readonly JsonPatchOperation[];
  readonly base_render_ref?: string;
  readonly questions?: readonly string[];
}

/** The result of `render_design`: the review and the ref of the render (bytes never appear here). */
interface RenderOutput {
  readonly visual_review: JsonValue;
  readonly render_ref: string;
}

/** What the render tool works with, fixed per harness. */
export interface RenderSetup {
  readonly renderer: Renderer;
  readonly vision: VisionSetup;
  readonly rules: ProposalRules;
}

/** The input schema of `render_design` (generic: the design schema never appears in it). */
function renderDesignSchema(limits: ResolvedLimits): object {
  return {
    type: 'object',
    properties: {
      patch: {
        type: 'array',
        items: OPERATION_SCHEMA,
        description:
          'RFC 6902 JSON Patch to preview: against the current design, or against the render named by base_render_ref. An empty patch renders it unchanged',
      },
      base_render_ref: {
        type: 'string',
        pattern: RENDER_REF_PATTERN,
        description: 'The render_ref of an earlier successful render of this run to patch further',
      },
      questions: questionsSchema(limits.maxReviewQuestions, limits.maxQuestionLength),
    },
    required: ['patch'],
    additionalProperties: false,
  };
}

function rejected(code: string, message: string): never {
  throw new ToolCallError('rejected', code, message);
}

async function renderWithin(
  run: RunContext,
  setup: RenderSetup,
  candidate: JsonValue,
  renderRef: string,
  baseRenderRef: string | undefined,
): Promise<CheckedArtifact> {
  const { limits } = run;
  const rendered = await withinDeadline(
    run,
    limits.renderTimeoutMs,
    () => new DeadlineExceededError('the render', limits.renderTimeoutMs),
    (timeoutSignal) =>
      setup.renderer.render(candidate, {
        runId: run.runId,
        renderRef,
        timeoutSignal,
        ...(baseRenderRef === undefined ? {} : { baseRenderRef }),
        ...(run.signal === undefined ? {} : { signal: run.signal }),
      }),
  );
  if (!rendered.ok) {
    throw new ToolCallError(
      rendered.timedOut ? 'timed_out' : 'failed',
      rendered.timedOut ? 'render_timeout' : 'render_failed',
      `Rendering \`${renderRef}\` failed: ${rendered.reason}`,
      { cause: rendered.error },
    );
  }
  const bounds = {
    maxBytes: limits.maxRenderBytes,
    maxMetadataBytes: limits.maxArtifactMetadataBytes,
    imageOnly: true,
  };
  return usableArtifact(rendered.value, bounds, 'render_invalid', `The render \`${renderRef}\``);
}

/** The definition of `render_design`; a run binds {@link renderDesignBody} to it. */
export function renderDesignDefinition(limits: ResolvedLimits): AgentTool<RenderInput, RenderOutput> {
  return {
    name: RENDER_DESIGN,
    description:
      'Render a candidate design and have a vision model review it: give a JSON Patch against the current design, or against an earlier render (base_render_ref) to refine it. Returns the review and a render_ref; commit_render makes a render your proposal. Nothing is applied. When editing is not allowed, only the current design can be rendered (an empty patch).',
    inputSchema: renderDesignSchema(limits) as AgentTool['inputSchema'],
    timeoutMs: visionToolTimeoutMs(limits, limits.renderTimeoutMs),
    execute: unbound,
  };
}

/** A render's candidate, checked: everything a render needs before it is charged. */
interface CheckedRender {
  readonly base: RenderRecord | undefined;
  /** The whole chain relative to the run's design. */
  readonly composed: readonly JsonPatchOperation[];
  readonly candidate: JsonValue;
  readonly changed: boolean;
  /** The candidate equals its base (the no-op guard counts these). */
  readonly unchanged: boolean;
}

/** Steps 2 to 6 of a render: base, patch, composed chain, edit permission, spec, policies, no-op guard. */
async function checkRender(run: RunContext, setup: RenderSetup, input: RenderInput): Promise<CheckedRender> {
  const { renders, limits } = run;
  const baseRef = input.base_render_ref;
  const base = baseRef === undefined ? undefined : renders.get(baseRef);
  if (baseRef !== undefined && base === undefined) {
    throw unknownRefError(
      'unknown_render_ref',
      `Unknown render ref \`${baseRef}\`: use the render_ref of a successful render of this run`,
      renders.list().map((record) => record.ref),
    );
  }
  const baseDesign = base?.candidate ?? run.design;
  const applied = applyToDesign(run, baseDesign, input.patch);
  if (!applied.ok) {
    const target = base === undefined ? 'the current design' : `\`${base.ref}\``;
    rejected(applied.code, `The patch does not apply to ${target}: ${applied.message}`);
  }
  // One patch relative to the run's design (without a base it is the patch itself, just applied):
  // re-applied to prove it gives the same candidate, and held to the patch limits as a whole.
  const composed = base === undefined ? input.patch : [...base.patch, ...input.patch];
  if (base !== undefined) {
    const proof = applyToDesign(run, run.design, composed, 'composed_patch');
    if (!proof.ok) {
      rejected(
        proof.code,
        `The patch composed with \`${base.ref}\` (${composed.length} operations from the current design) is refused: ${proof.message}`,
      );
    }
    const mismatch = firstDifference(proof.design, applied.design);
    if (mismatch !== null) {
      rejected(
        'composition_mismatch',
        `The composed patch does not reproduce the candidate (first difference at \`${mismatch}\`); render from the current design instead`,
      );
    }
  }
  const candidate = deepFreeze(applied.design);
  const candidateJson = canonicalJson(candidate);
  const changed = candidateJson !== canonicalJson(run.design);
  if (!run.canEdit && changed) {
    rejected(
      'edit_not_allowed',
      'Editing is not allowed in this run: only the current design can be rendered, with an empty patch',
    );
  }
  const refused = await checkCandidate(run, setup.rules, {
    phase: 'render',
    message: '',
    patch: composed,
    renderRef: baseRef,
    candidate,
    changed,
    ...outcomeLists(run.outcomes()),
    checkSpec: changed,
  });
  if (refused !== null) rejected(refused.code, refused.message);
  const unchanged = candidateJson === canonicalJson(baseDesign);
  if (unchanged && renders.unchangedInARow >= limits.maxUnchangedRenders) {
    rejected(
      'unchanged_render_limit',
      `The last ${renders.unchangedInARow} renders changed nothing from their base: change the design before rendering again`,
    );
  }
  return { base, composed, candidate, changed, unchanged };
}

/** The body of the run's `render_design` tool. */
export function renderDesignBody(run: RunContext, setup: RenderSetup): ToolBody<RenderInput, RenderOutput> {
  const { limits, renders } = run;
  return async function renderDesign(input, context: ToolContext) {
    const { base, composed, candidate, changed, unchanged } = await checkRender(run, setup, input);
    if (renders.charged >= limits.maxRenders) {
      rejected(
        'render_budget_exhausted',
        `This run has used its ${limits.maxRenders} renders; continue without rendering`,
      );
    }
    const ref = renders.charge(unchanged);
    chargeCall(context);
    const artifact = await renderWithin(run, setup, candidate, ref, base?.ref);
    const images: VisionImage[] =
      base === undefined
        ? [{ label: `${ref}: the candidate design as rendered`, artifact }]
        : [
            { label: `${base.ref}: the base render`, artifact: base.artifact },
            { label: `${ref}: the new render (the base with the patch applied)`, artifact },
          ];
    const purpose = base === undefined ? 'render_review' : 'comparison';
    const { review } = await reviewVisually(run, setup.vision, {
      purpose,
      questions: questionsFor(purpose, input.questions),
      images,
      structured: true,
      stepId: context.stepId,
      toolCallId: context.callId,
    });
    renders.add({ ref, baseRef: base?.ref, patch: composed, candidate, changed, artifact, review });
    return { visual_review: review, render_ref: ref };
  };
}
