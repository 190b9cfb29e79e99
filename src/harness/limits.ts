/**
 * Run limits: defaults that bound every run, and opt-in guards that stop a run with
 * {@link RunLimitExceededError} when set.
 */

import { integerOption } from '../option-checks.js';
import { invalidHarnessOption } from './errors.js';
import { applyJsonPatch, DEFAULT_JSON_PATCH_LIMITS, type JsonPatchLimits } from './json-patch/apply-json-patch.js';

/** Bounds of a run. Every field is optional; the guards at the end are off unless set. */
export interface HarnessLimits {
  /** Main-model calls per run, retries included (default 16). */
  readonly maxSteps?: number;
  /** Unusable answers in a row (bad JSON, wrong shape) before the run stops (default 2; resets after a usable one). */
  readonly maxProtocolRetries?: number;
  /** Refused proposals per work phase before the run stops (default 2; resets when the model runs tools). */
  readonly maxValidationRetries?: number;
  /** `maxOutputTokens` of each main-model call (default 4096). */
  readonly maxOutputTokens?: number;
  /** Tool calls one model turn may ask for; the rest are rejected (default 8). */
  readonly maxToolCallsPerStep?: number;
  /** Calls of one tool per run, unless the tool says otherwise (default 8). */
  readonly maxCallsPerTool?: number;
  /** Time limit of one tool call, unless the tool says otherwise (default 30 s). */
  readonly toolTimeoutMs?: number;
  /** Bytes of the result a tool call shows the model, unless the tool says otherwise (default 32 KiB). */
  readonly maxToolResultBytes?: number;
  /** Bytes of a tool's full result kept as evidence (default 1 MiB). */
  readonly maxEvidenceBytes?: number;
  /** Bytes `retrieve_evidence` returns at most (default 16 KiB). */
  readonly maxEvidenceRetrievalBytes?: number;
  /** Calls of `retrieve_evidence` per run (default 16). */
  readonly maxEvidenceRetrievals?: number;
  /** Run tool calls of one turn concurrently when every one is `parallelSafe` (default false). */
  readonly parallelToolCalls?: boolean;
  /** Bounds of the proposed patch and of the document, before and after (default {@link DEFAULT_JSON_PATCH_LIMITS}). */
  readonly patch?: Partial<JsonPatchLimits>;
  /** Bytes of the run's request text (default 32 KiB). */
  readonly maxRequestBytes?: number;
  /** History messages kept, most recent first (default 20). */
  readonly maxHistoryMessages?: number;
  /** Bytes of history kept, most recent first (default 32 KiB). */
  readonly maxHistoryBytes?: number;
  /** Time limit of the whole run (default 5 min). */
  readonly runTimeoutMs?: number;
  /** Renders per run, charged only once a render's candidate passed validation (default 8). */
  readonly maxRenders?: number;
  /** Time limit of one render (default 60 s). */
  readonly renderTimeoutMs?: number;
  /** Bytes of one rendered artifact (default 8 MiB). */
  readonly maxRenderBytes?: number;
  /** Renders in a row whose candidate is unchanged from their base (default 2). */
  readonly maxUnchangedRenders?: number;
  /** Questions of one `render_design` or `inspect_asset` call (default 5). */
  readonly maxReviewQuestions?: number;
  /** Characters of one question (default 500). */
  readonly maxQuestionLength?: number;
  /** Time limit of one vision call (default 60 s). */
  readonly visionTimeoutMs?: number;
  /** Further attempts of a vision call that failed (provider error, timeout, unusable review; default 1). */
  readonly maxVisionRetries?: number;
  /** Bytes of an artifact's JSON metadata (default 16 KiB). */
  readonly maxArtifactMetadataBytes?: number;
  /** Searches per asset provider per run (default 4). */
  readonly maxAssetSearches?: number;
  /** Time limit of one asset search (default 10 s). */
  readonly assetSearchTimeoutMs?: number;
  /** Assets one search returns at most; more are cut off (default 10). */
  readonly maxAssetResults?: number;
  /** Characters of an asset search query (default 500). */
  readonly maxAssetQueryLength?: number;
  /** Calls of `inspect_asset` that reach the vision model, per run (default 8). */
  readonly maxAssetInspections?: number;
  /** Time limit of loading one asset preview (default 30 s). */
  readonly assetPreviewTimeoutMs?: number;
  /** Bytes of one asset preview (default 8 MiB). */
  readonly maxAssetPreviewBytes?: number;
  /** Input artifacts per run (default 16). */
  readonly maxInputArtifacts?: number;
  /** Time limit of loading one lazy input artifact (default 30 s). */
  readonly inputArtifactTimeoutMs?: number;
  /** Bytes of one input artifact (default 16 MiB). */
  readonly maxInputArtifactBytes?: number;
  /** Guard: provider tokens (input plus output) per run, checked before each call (budget fuse). */
  readonly maxProviderTokens?: number;
  /** Guard: bytes of tool results shown to the model per run. */
  readonly maxToolResultBytesPerRun?: number;
  /** Guard: identical tool calls (same tool, same arguments, no new result) per run (loop fuse). */
  readonly maxIdenticalToolCalls?: number;
  /** Guard: times the same candidate may be proposed per run. */
  readonly maxIdenticalCandidates?: number;
}

/** Limits with every default filled in; guards stay `undefined` when off. */
export interface ResolvedLimits {
  readonly maxSteps: number;
  readonly maxProtocolRetries: number;
  readonly maxValidationRetries: number;
  readonly maxOutputTokens: number;
  readonly maxToolCallsPerStep: number;
  readonly maxCallsPerTool: number;
  readonly toolTimeoutMs: number;
  readonly maxToolResultBytes: number;
  readonly maxEvidenceBytes: number;
  readonly maxEvidenceRetrievalBytes: number;
  readonly maxEvidenceRetrievals: number;
  readonly parallelToolCalls: boolean;
  readonly patch: JsonPatchLimits;
  readonly maxRequestBytes: number;
  readonly maxHistoryMessages: number;
  readonly maxHistoryBytes: number;
  readonly runTimeoutMs: number;
  readonly maxRenders: number;
  readonly renderTimeoutMs: number;
  readonly maxRenderBytes: number;
  readonly maxUnchangedRenders: number;
  readonly maxReviewQuestions: number;
  readonly maxQuestionLength: number;
  readonly visionTimeoutMs: number;
  readonly maxVisionRetries: number;
  readonly maxArtifactMetadataBytes: number;
  readonly maxAssetSearches: number;
  readonly assetSearchTimeoutMs: number;
  readonly maxAssetResults: number;
  readonly maxAssetQueryLength: number;
  readonly maxAssetInspections: number;
  readonly assetPreviewTimeoutMs: number;
  readonly maxAssetPreviewBytes: number;
  readonly maxInputArtifacts: number;
  readonly inputArtifactTimeoutMs: number;
  readonly maxInputArtifactBytes: number;
  readonly maxProviderTokens: number | undefined;
  readonly maxToolResultBytesPerRun: number | undefined;
  readonly maxIdenticalToolCalls: number | undefined;
  readonly maxIdenticalCandidates: number | undefined;
}

/** The defaults of {@link HarnessLimits}. */
export const DEFAULT_HARNESS_LIMITS: ResolvedLimits = Object.freeze({
  maxSteps: 16,
  maxProtocolRetries: 2,
  maxValidationRetries: 2,
  maxOutputTokens: 4096,
  maxToolCallsPerStep: 8,
  maxCallsPerTool: 8,
  toolTimeoutMs: 30_000,
  maxToolResultBytes: 32_768,
  maxEvidenceBytes: 1_048_576,
  maxEvidenceRetrievalBytes: 16_384,
  maxEvidenceRetrievals: 16,
  parallelToolCalls: false,
  patch: DEFAULT_JSON_PATCH_LIMITS,
  maxRequestBytes: 32_768,
  maxHistoryMessages: 20,
  maxHistoryBytes: 32_768,
  runTimeoutMs: 300_000,
  maxRenders: 8,
  renderTimeoutMs: 60_000,
  maxRenderBytes: 8_388_608,
  maxUnchangedRenders: 2,
  maxReviewQuestions: 5,
  maxQuestionLength: 500,
  visionTimeoutMs: 60_000,
  maxVisionRetries: 1,
  maxArtifactMetadataBytes: 16_384,
  maxAssetSearches: 4,
  assetSearchTimeoutMs: 10_000,
  maxAssetResults: 10,
  maxAssetQueryLength: 500,
  maxAssetInspections: 8,
  assetPreviewTimeoutMs: 30_000,
  maxAssetPreviewBytes: 8_388_608,
  maxInputArtifacts: 16,
  inputArtifactTimeoutMs: 30_000,
  maxInputArtifactBytes: 16_777_216,
  maxProviderTokens: undefined,
  maxToolResultBytesPerRun: undefined,
  maxIdenticalToolCalls: undefined,
  maxIdenticalCandidates: undefined,
});

type NumericLimit = Exclude<keyof ResolvedLimits, 'parallelToolCalls' | 'patch'>;

/** Fields that must be at least 1 (a zero would make every run fail); the rest may be 0. */
const POSITIVE = new Set<NumericLimit>([
  'maxSteps',
  'maxOutputTokens',
  'maxCallsPerTool',
  'toolTimeoutMs',
  'maxToolResultBytes',
  'maxEvidenceBytes',
  'maxEvidenceRetrievalBytes',
  'runTimeoutMs',
  'maxIdenticalToolCalls',
  'maxIdenticalCandidates',
  'maxRequestBytes',
  'renderTimeoutMs',
  'maxRenderBytes',
  'maxUnchangedRenders',
  'maxReviewQuestions',
  'maxQuestionLength',
  'visionTimeoutMs',
  'maxArtifactMetadataBytes',
  'assetSearchTimeoutMs',
  'maxAssetResults',
  'maxAssetQueryLength',
  'assetPreviewTimeoutMs',
  'maxAssetPreviewBytes',
  'inputArtifactTimeoutMs',
  'maxInputArtifactBytes',
]);

function checkedNumber(name: NumericLimit, value: unknown): number {
  return integerOption(`limits.${name}`, value, POSITIVE.has(name) ? 1 : 0);
}

/** Fill in defaults and check every value; throws {@link InvalidOptionError}. */
export function resolveLimits(limits: HarnessLimits = {}): ResolvedLimits {
  const out: Record<string, unknown> = { ...DEFAULT_HARNESS_LIMITS };
  for (const [name, value] of Object.entries(limits)) {
    if (value === undefined) continue;
    if (!Object.hasOwn(DEFAULT_HARNESS_LIMITS, name)) {
      throw invalidHarnessOption(`limits.${name}`, 'unknown limit');
    }
    if (name === 'parallelToolCalls') {
      if (typeof value !== 'boolean') throw invalidHarnessOption('limits.parallelToolCalls', 'expected a boolean');
      out[name] = value;
    } else if (name === 'patch') {
      const patch = Object.freeze({ ...DEFAULT_JSON_PATCH_LIMITS, ...(value as Partial<JsonPatchLimits>) });
      try {
        applyJsonPatch(null, [], patch); // checks every limit is one it can enforce
      } catch (error) {
        throw invalidHarnessOption('limits.patch', (error as Error).message, { cause: error });
      }
      out[name] = patch;
    } else {
      out[name] = checkedNumber(name as NumericLimit, value);
    }
  }
  return Object.freeze(out) as unknown as ResolvedLimits;
}

/**
 * The time limit of a built-in tool call that does `firstMs` of its own work (a render, a load)
 * and then asks the vision model, retries included, with a second of slack.
 */
export function visionToolTimeoutMs(limits: ResolvedLimits, firstMs: number): number {
  return firstMs + limits.visionTimeoutMs * (1 + limits.maxVisionRetries) + 1_000;
}
