/**
 * The run a config is inside: set by `config.run`, read by the tool pipeline (fuses) through
 * AsyncLocalStorage, so it follows the agent turn through every await.
 */
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
  /** This run of the agent; the fuse state and the snapshots belong to it. */
  readonly runId: string;
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

/** Check a run scope's ids; a run without ids would share fuse state and transition keys. */
export function checkRunScope(scope: ConfigRunScope): void {
  for (const field of ['threadId', 'runId'] as const) {
    const value = readArgument(
      'config.run',
      'scope',
      () => (scope as unknown as Record<string, unknown> | null)?.[field],
    );
    if (typeof value !== 'string' || value === '') {
      throw new InvalidArgumentError(
        'config.run',
        `scope.${field}`,
        `must be a non-empty string, got ${kindOf(value)}`,
      );
    }
  }
}
