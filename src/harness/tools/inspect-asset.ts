/**
 * The built-in `inspect_asset` tool: look at an asset found in this run with the vision model.
 * Its preview is loaded only here, once per run; a failed load is returned and may be retried;
 * inspections have their own budget, charged only once a preview is in hand.
 */

import { ASSET_REF_PATTERN } from '../assets/asset-registry.js';
import { type ResolvedLimits, visionToolTimeoutMs } from '../limits.js';
import { DeadlineExceededError, withinDeadline } from '../run/race.js';
import type { RunContext } from '../run/run-context.js';
import type { CheckedArtifact } from '../visual/check-artifact.js';
import { questionsFor, reviewVisually, type VisionSetup } from '../visual/review-visually.js';
import { type AgentTool, type ToolBody, unbound } from './agent-tool.js';
import { loadFailedError, usableArtifact } from './artifact-errors.js';
import { chargeCall } from './call-charge.js';
import { questionsSchema } from './inspect-visual.js';
import { ToolCallError, unknownRefError } from './tool-call-error.js';

/** Name of the built-in asset inspection tool. */
export const INSPECT_ASSET = 'inspect_asset';

interface InspectAssetInput {
  readonly asset_ref: string;
  readonly questions?: readonly string[];
}

/** The definition of `inspect_asset`; a run binds {@link inspectAssetBody} to it. */
export function inspectAssetDefinition(limits: ResolvedLimits): AgentTool<InspectAssetInput> {
  return {
    name: INSPECT_ASSET,
    description:
      'Ask a vision model questions about the preview of an asset found by an asset search of this run (by its asset ref).',
    inputSchema: {
      type: 'object',
      properties: {
        asset_ref: {
          type: 'string',
          pattern: ASSET_REF_PATTERN,
          description: 'An asset ref from a search of this run',
        },
        questions: questionsSchema(limits.maxReviewQuestions, limits.maxQuestionLength),
      },
      required: ['asset_ref'],
      additionalProperties: false,
    },
    timeoutMs: visionToolTimeoutMs(limits, limits.assetPreviewTimeoutMs),
    execute: unbound,
  };
}

async function loadPreview(run: RunContext, ref: string): Promise<CheckedArtifact> {
  const record = run.assets.get(ref);
  const { limits } = run;
  let value: unknown = record?.preview;
  if (record?.previewLoader !== undefined) {
    const loader = record.previewLoader;
    const loaded = await withinDeadline(
      run,
      limits.assetPreviewTimeoutMs,
      () => new DeadlineExceededError('loading the preview', limits.assetPreviewTimeoutMs),
      (timeoutSignal) =>
        loader({
          runId: run.runId,
          assetRef: ref,
          timeoutSignal,
          ...(run.signal === undefined ? {} : { signal: run.signal }),
        }),
    );
    if (!loaded.ok) throw loadFailedError(loaded, 'preview_load_failed', `The preview of \`${ref}\``);
    value = loaded.value;
  }
  const bounds = {
    maxBytes: limits.maxAssetPreviewBytes,
    maxMetadataBytes: limits.maxArtifactMetadataBytes,
    imageOnly: true,
  };
  return usableArtifact(value, bounds, 'preview_invalid', `The preview of \`${ref}\``);
}

/** The body of the run's `inspect_asset` tool. */
export function inspectAssetBody(run: RunContext, vision: VisionSetup): ToolBody<InspectAssetInput> {
  return async function inspectAsset({ asset_ref: ref, questions }, context) {
    const record = run.assets.get(ref);
    if (record === undefined) {
      throw unknownRefError(
        'unknown_asset_ref',
        `Unknown asset ref \`${ref}\`: use a ref from an asset search of this run`,
        run.assets.approved().map((asset) => asset.ref),
      );
    }
    if (!record.approved.hasPreview) {
      throw new ToolCallError('rejected', 'no_preview', `Asset \`${ref}\` has no preview to look at`);
    }
    if (run.assets.inspections >= run.limits.maxAssetInspections) {
      throw new ToolCallError(
        'rejected',
        'inspection_budget_exhausted',
        `This run has used its ${run.limits.maxAssetInspections} asset inspections; continue without them`,
      );
    }
    const artifact = await run.assets.preview(ref, () => loadPreview(run, ref));
    run.assets.inspections += 1;
    chargeCall(context);
    const title = record.approved.title === null ? '' : ` (${record.approved.title})`;
    const { review } = await reviewVisually(run, vision, {
      purpose: 'asset_inspection',
      questions: questionsFor('asset_inspection', questions),
      images: [
        {
          label: `${ref}${title}: preview of asset \`${record.approved.id}\` from \`${record.approved.provider}\``,
          artifact,
        },
      ],
      structured: false,
      stepId: context.stepId,
      toolCallId: context.callId,
    });
    return { asset_ref: ref, answer: review };
  };
}
