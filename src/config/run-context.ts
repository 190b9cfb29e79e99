/**
 * The run a config is inside: set by `config.run`, read by the tool pipeline (fuses) through
 * AsyncLocalStorage, so it follows the agent turn through every await.
 */
import { randomUUID } from 'node:crypto';
import type { Session } from '../context/session.js';
import type { RunHandle } from '../context/snapshots/run-snapshots.js';
import { type AsyncScope, createAsyncScope } from '../core/scope.js';
import type { FuseRun } from '../fuses/run-box.js';
import { InvalidArgumentError, kindOf, readArgument } from '../invalid-argument.js';
import type { RunState } from '../storage/snapshot-storage.js';

/** What `config.run` is given. */
export interface ConfigRunScope {
  /** The conversation; part of every transition key of the run. */
  readonly threadId: string;
  /**
   * This run of the agent: part of every transition key of the run; the snapshots belong to it.
   * Default: the thread id, so every run of a thread shares its transitions, as mycelium-runtime's
   * `config.run(thread_id)` does: a call redispatched in a later run of the thread meets the
   * transition of the first one (and returns its result, or is blocked) instead of running again.
   * Give each run its own id only when a run's calls must not be deduplicated against an earlier
   * run's.
   */
  readonly runId?: string;
  /** The graph node, when the agent is a graph. */
  readonly node?: string;
  /** Cancels the run (snapshots record it as `aborted`). */
  readonly signal?: AbortSignal;
  /** Snapshot state to start from (a resumed run). */
  readonly initialState?: RunState;
}

/** What the body of `config.run` receives. */
export interface ConfigRun {
  readonly threadId: string;
  readonly runId: string;
  readonly node: string | undefined;
  /** The session that owns the run's TTL caches. */
  readonly session: Session;
  /** The run's fuses (model calls go through `fuses.checkModelCall`), when fuses are configured. */
  readonly fuses: FuseRun | undefined;
  /** The run's snapshot handle (`record`, `abort`), when `run_snapshots` is configured. */
  readonly snapshot: RunHandle | undefined;
}

/** The current `config.run` of one config. */
export function createRunScope(): AsyncScope<ConfigRun> {
  return createAsyncScope<ConfigRun>();
}

/** A run scope with its ids checked and its defaults applied. */
export interface ResolvedRunScope {
  readonly threadId: string;
  readonly runId: string;
  /** The fuse state's run: `runId` when given, else one of its own per `config.run` call. */
  readonly fuseRunId: string;
}

/** Check a run scope's ids (a run without ids would share fuse state and transition keys) and apply the defaults. */
export function resolveRunScope(scope: ConfigRunScope): ResolvedRunScope {
  const ids: Partial<Record<'threadId' | 'runId', string>> = {};
  for (const field of ['threadId', 'runId'] as const) {
    const value = readArgument(
      'config.run',
      'scope',
      () => (scope as unknown as Record<string, unknown> | null)?.[field],
    );
    if (field === 'runId' && value === undefined) continue;
    if (typeof value !== 'string' || value === '') {
      throw new InvalidArgumentError(
        'config.run',
        `scope.${field}`,
        `must be a non-empty string, got ${kindOf(value)}`,
      );
    }
    ids[field] = value;
  }
  const threadId = ids.threadId as string;
  // Fuses count per run: two runs of one thread without run ids must not share a loop count, and
  // the end of one must not end the other's.
  return ids.runId === undefined
    ? { threadId, runId: threadId, fuseRunId: `${threadId}#${randomUUID()}` }
    : { threadId, runId: ids.runId, fuseRunId: ids.runId };
}
