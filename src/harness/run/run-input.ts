/**
 * The options of one run, and their checks.
 */
import { HarnessInputError } from '../errors.js';
import type { HarnessEvent } from '../events.js';
import type { ResolvedLimits } from '../limits.js';
import type { Artifact } from '../models/types.js';
import type { StepTrace } from '../traces.js';
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
  /** Images and files the user supplied; tools receive them, the model sees their ids. */
  readonly inputArtifacts?: readonly Artifact[];
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
  readonly inputArtifacts: readonly Artifact[];
}

function artifactsOf(value: unknown): Artifact[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new HarnessInputError('inputArtifacts', 'expected an array of artifacts');
  const ids = new Set<string>();
  return value.map((artifact: Artifact, index) => {
    const field = `inputArtifacts[${index}]`;
    if (typeof artifact !== 'object' || artifact === null)
      throw new HarnessInputError(field, 'expected an artifact object');
    if (typeof artifact.id !== 'string' || artifact.id === '')
      throw new HarnessInputError(`${field}.id`, 'expected a non-empty string');
    if (ids.has(artifact.id)) throw new HarnessInputError(`${field}.id`, `\`${artifact.id}\` is used twice`);
    ids.add(artifact.id);
    if (typeof artifact.mediaType !== 'string' || !artifact.mediaType.includes('/')) {
      throw new HarnessInputError(`${field}.mediaType`, 'expected a media type such as `image/png`');
    }
    if (typeof artifact.data !== 'string' && !(artifact.data instanceof Uint8Array)) {
      throw new HarnessInputError(`${field}.data`, 'expected bytes, base64 text or a URL');
    }
    return Object.freeze({ ...artifact });
  });
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
    inputArtifacts: Object.freeze(artifactsOf(options.inputArtifacts)),
  };
}
