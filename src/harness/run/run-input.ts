/**
 * The options of one run, and their checks.
 */
import { HarnessInputError } from '../errors.js';
import type { HarnessEvent } from '../events.js';
import type { ResolvedLimits } from '../limits.js';
import type { StepTrace } from '../traces.js';
import { type CheckedInputArtifact, checkInputArtifacts, type InputArtifact } from './input-artifacts.js';
import type { HistoryMessage } from './run-prompt.js';

/** What one run is asked to do. */
export interface PatchRunOptions {
  /** The user's request. */
  readonly request: string;
  /** The current design as stored by the application (trusted: migrated and normalised by the spec). */
  readonly design: unknown;
  /** Whether the run may propose a change; when false the patch must be null. */
  readonly canEdit: boolean;
  /** What the caller may do; tools requiring anything else are not offered. */
  readonly capabilities?: readonly string[];
  /** Earlier conversation: plain user and assistant text only. */
  readonly history?: readonly HistoryMessage[];
  /**
   * Files for this run only, eager (bytes now) or lazy (loaded on first use, once per run). The
   * model sees their descriptors (id, kind, metadata), never their bytes; tools load them with
   * `context.loadInputArtifact(id)`.
   */
  readonly inputArtifacts?: readonly InputArtifact[];
  /** Lifecycle events (ids, status, elapsed time). */
  readonly onEvent?: (event: HarnessEvent) => void;
  /** Called with each step's trace when the step is done. */
  readonly onStep?: (trace: StepTrace) => void | Promise<void>;
  /** Aborts the run; passed unchanged to every model and tool call, and the run rejects with its reason. */
  readonly signal?: AbortSignal;
  /** Id of the run (default: a random UUID). */
  readonly runId?: string;
}

/** Checked run options. */
export interface CheckedRunInput {
  readonly request: string;
  readonly canEdit: boolean;
  /** Sorted, without duplicates. */
  readonly capabilities: readonly string[];
  readonly inputArtifacts: readonly CheckedInputArtifact[];
}

/** Check a run's options; throws {@link HarnessInputError}. */
export function checkRunInput(options: PatchRunOptions, limits: ResolvedLimits): CheckedRunInput {
  if (typeof options !== 'object' || options === null) throw new HarnessInputError('options', 'expected an object');
  const { request, canEdit } = options;
  if (typeof request !== 'string' || request.trim() === '')
    throw new HarnessInputError('request', 'expected a non-empty string');
  const bytes = Buffer.byteLength(request, 'utf8');
  if (bytes > limits.maxRequestBytes) {
    throw new HarnessInputError('request', `${bytes} bytes is over the ${limits.maxRequestBytes}-byte limit`);
  }
  if (typeof canEdit !== 'boolean') throw new HarnessInputError('canEdit', 'expected a boolean');
  const capabilities = options.capabilities ?? [];
  if (!Array.isArray(capabilities) || capabilities.some((c) => typeof c !== 'string' || c === '')) {
    throw new HarnessInputError('capabilities', 'expected an array of non-empty strings');
  }
  if (options.runId !== undefined && (typeof options.runId !== 'string' || options.runId === '')) {
    throw new HarnessInputError('runId', 'expected a non-empty string');
  }
  return {
    request,
    canEdit,
    capabilities: Object.freeze([...new Set(capabilities)].sort()),
    inputArtifacts: checkInputArtifacts(options.inputArtifacts, limits),
  };
}
