/**
 * Input artifacts: files the application hands one run, eager (bytes now) or lazy (loaded on
 * first use, once per run). The model sees descriptors only — id, kind, metadata — never bytes.
 */
import type { Clock } from '../../core/clock.js';
import { codeList } from '../../core/code-list.js';
import { HarnessInputError } from '../errors.js';
import type { ResolvedLimits } from '../limits.js';
import type { ArtifactMetadata, RenderedArtifact } from '../models/types.js';
import { loadFailedError, usableArtifact } from '../tools/artifact-errors.js';
import { ToolCallError } from '../tools/tool-call-error.js';
import { type CheckedArtifact, checkArtifact, checkMetadata, shareArtifact } from '../visual/check-artifact.js';
import { DeadlineExceededError, withinDeadline } from './race.js';

/** What a lazy artifact's loader knows. */
export interface ArtifactLoadContext {
  readonly runId: string;
  /** The caller's signal, unchanged. */
  readonly signal?: AbortSignal;
  /** Aborts at the load's or the run's time limit. */
  readonly timeoutSignal: AbortSignal;
}

/** What the model and tools see of an input artifact. */
export interface InputArtifactDescriptor {
  readonly id: string;
  /** The application's word for what it is, e.g. `reference_image`, `brand_guide`. */
  readonly kind: string;
  readonly metadata: ArtifactMetadata;
}

/** An input artifact whose bytes are given now. */
export interface EagerInputArtifact {
  readonly id: string;
  readonly kind: string;
  readonly metadata?: ArtifactMetadata;
  readonly artifact: RenderedArtifact;
}

/** An input artifact loaded on first use (then kept for the run). */
export interface LazyInputArtifact {
  readonly id: string;
  readonly kind: string;
  readonly metadata?: ArtifactMetadata;
  load(context: ArtifactLoadContext): RenderedArtifact | Promise<RenderedArtifact>;
}

/** A file handed to one run: eager or lazy. */
export type InputArtifact = EagerInputArtifact | LazyInputArtifact;

/** A checked input artifact. */
export interface CheckedInputArtifact {
  readonly descriptor: InputArtifactDescriptor;
  readonly artifact: CheckedArtifact | undefined;
  readonly load: LazyInputArtifact['load'] | undefined;
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,127}$/;
const KIND = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

function metadataOf(value: unknown, field: string, limits: ResolvedLimits): ArtifactMetadata {
  const checked = checkMetadata(value, limits.maxArtifactMetadataBytes);
  if (checked.ok) return checked.metadata;
  switch (checked.kind) {
    case 'not_object':
      throw new HarnessInputError(field, 'expected a JSON object');
    case 'not_json':
      throw new HarnessInputError(field, `not JSON: ${checked.reason}`, { cause: checked.error });
    case 'too_large':
      throw new HarnessInputError(field, `${checked.bytes} bytes is over the ${checked.maxBytes}-byte limit`);
  }
}

/** Check a run's input artifacts; throws {@link HarnessInputError} naming the offending one. */
export function checkInputArtifacts(value: unknown, limits: ResolvedLimits): readonly CheckedInputArtifact[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new HarnessInputError('inputArtifacts', 'expected an array of input artifacts');
  if (value.length > limits.maxInputArtifacts) {
    throw new HarnessInputError(
      'inputArtifacts',
      `${value.length} artifacts is over the limit of ${limits.maxInputArtifacts}`,
    );
  }
  const ids = new Set<string>();
  return Object.freeze(
    value.map((item: unknown, index): CheckedInputArtifact => {
      const field = `inputArtifacts[${index}]`;
      if (typeof item !== 'object' || item === null) throw new HarnessInputError(field, 'expected an object');
      const input = item as Partial<EagerInputArtifact> & Partial<Pick<LazyInputArtifact, 'load'>>;
      if (typeof input.id !== 'string' || !ID.test(input.id)) {
        throw new HarnessInputError(`${field}.id`, `expected an id matching ${ID}, got \`${String(input.id)}\``);
      }
      if (ids.has(input.id)) throw new HarnessInputError(`${field}.id`, `\`${input.id}\` is used twice`);
      ids.add(input.id);
      if (typeof input.kind !== 'string' || !KIND.test(input.kind)) {
        throw new HarnessInputError(`${field}.kind`, `expected a kind matching ${KIND}, got \`${String(input.kind)}\``);
      }
      const descriptor = Object.freeze({
        id: input.id,
        kind: input.kind,
        metadata: metadataOf(input.metadata, `${field}.metadata`, limits),
      });
      const eager = input.artifact !== undefined;
      const lazy = input.load !== undefined;
      if (eager === lazy) {
        throw new HarnessInputError(field, 'expected exactly one of `artifact` (eager) or `load` (lazy)');
      }
      if (lazy) {
        if (typeof input.load !== 'function') throw new HarnessInputError(`${field}.load`, 'expected a function');
        return { descriptor, artifact: undefined, load: input.load };
      }
      const checked = checkArtifact(input.artifact, {
        maxBytes: limits.maxInputArtifactBytes,
        maxMetadataBytes: limits.maxArtifactMetadataBytes,
        imageOnly: false,
      });
      if (!checked.ok) throw new HarnessInputError(`${field}.artifact`, checked.problem);
      return { descriptor, artifact: checked.artifact, load: undefined };
    }),
  );
}

/** A run's input artifacts. */
export interface InputArtifactStore {
  readonly descriptors: readonly InputArtifactDescriptor[];
  /** The bytes of artifact `id` (a copy); a lazy one is loaded once per run. Throws {@link ToolCallError}. */
  load(id: string): Promise<RenderedArtifact>;
}

/** What loading needs of the run. */
export interface LoadScope {
  readonly runId: string;
  readonly limits: ResolvedLimits;
  readonly clock: Clock;
  readonly signal: AbortSignal | undefined;
  readonly runTimeout: AbortSignal;
}

/**
 * The store of one run. A lazy artifact is loaded on first use; callers at the same time share
 * that load; a successful load is kept for the run, a failed one is not (a later call tries again).
 */
export function createInputArtifactStore(
  artifacts: readonly CheckedInputArtifact[],
  scope: LoadScope,
): InputArtifactStore {
  const byId = new Map(artifacts.map((artifact) => [artifact.descriptor.id, artifact]));
  const loaded = new Map<string, Promise<CheckedArtifact>>();

  async function loadOnce(item: CheckedInputArtifact): Promise<CheckedArtifact> {
    const { limits } = scope;
    const id = item.descriptor.id;
    const outcome = await withinDeadline(
      scope,
      limits.inputArtifactTimeoutMs,
      () => new DeadlineExceededError('loading', limits.inputArtifactTimeoutMs),
      (timeoutSignal) =>
        (item.load as LazyInputArtifact['load'])({
          runId: scope.runId,
          timeoutSignal,
          ...(scope.signal === undefined ? {} : { signal: scope.signal }),
        }),
    );
    if (!outcome.ok) throw loadFailedError(outcome, 'artifact_load_failed', `Input artifact \`${id}\``);
    const bounds = {
      maxBytes: limits.maxInputArtifactBytes,
      maxMetadataBytes: limits.maxArtifactMetadataBytes,
      imageOnly: false,
    };
    return usableArtifact(outcome.value, bounds, 'artifact_invalid', `Input artifact \`${id}\``);
  }

  return {
    descriptors: Object.freeze(artifacts.map((artifact) => artifact.descriptor)),
    async load(id) {
      const item = byId.get(id);
      if (item === undefined) {
        const known = codeList(byId.keys());
        throw new ToolCallError(
          'rejected',
          'unknown_input_artifact',
          `Unknown input artifact \`${id}\` (available: ${known})`,
        );
      }
      if (item.artifact !== undefined) return shareArtifact(item.artifact);
      let pending = loaded.get(id);
      if (pending === undefined) {
        pending = loadOnce(item);
        loaded.set(id, pending);
        pending.catch(() => loaded.delete(id));
      }
      return shareArtifact(await pending);
    },
  };
}
