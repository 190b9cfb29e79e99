/**
 * Run snapshots: a history of states per run, each run ending in a recorded final status.
 */
import { type Clock, systemClock } from '../../core/clock.js';
import { GuardError } from '../../errors.js';
import { optionsOf } from '../../invalid-argument.js';
import type {
  RunSnapshot,
  RunState,
  RunStatus,
  SnapshotInput,
  SnapshotStorage,
} from '../../storage/snapshot-storage.js';
import { SnapshotNotFoundError, SnapshotStorageError } from '../errors.js';
import { mergeState } from './merge-state.js';

/** What a run body receives. */
export interface RunHandle {
  readonly runId: string;
  /** Aborts when the run is cancelled (`abort()`) or the caller's signal fires. */
  readonly signal: AbortSignal;
  /** The merged state so far. */
  readonly state: RunState;
  /** Merge `patch` into the state (see `mergeState`) and append a `running` snapshot in order. */
  record(patch: RunState): void;
  /** Cancel the run: `signal` aborts and the run ends as `aborted`. */
  abort(reason?: unknown): void;
  /** Mark the run as ended by a disconnect; it ends as `disconnect`. */
  disconnect(): void;
  /** Wait until every snapshot recorded so far is stored; rejects if one failed. */
  flush(): Promise<void>;
}

/** Options of one run. */
export interface RunOptions {
  readonly signal?: AbortSignal;
  /** State to start from, e.g. `(await snapshots.resume(id)).state`. */
  readonly initialState?: RunState;
}

/** Something the snapshots could not raise. */
export interface SnapshotEvent {
  readonly type: 'storage_error';
  readonly runId: string;
  readonly error: unknown;
}

/** Options of {@link createRunSnapshots}. */
export interface RunSnapshotsOptions {
  readonly storage: SnapshotStorage;
  readonly clock?: Clock;
  /** Told about a storage failure that could not be raised because the body's own error was. */
  readonly onEvent?: (event: SnapshotEvent) => void;
}

/** Runs with recorded snapshots. */
export interface RunSnapshots {
  /** Run `fn`, recording its start, its `record` patches and its final status. */
  run<R>(runId: string, fn: (handle: RunHandle) => R | Promise<R>, options?: RunOptions): Promise<R>;
  /** The latest snapshot of a run; throws {@link SnapshotNotFoundError} when there is none. */
  resume(runId: string): Promise<RunSnapshot>;
  /** Every snapshot of a run, oldest first. */
  history(runId: string): Promise<RunSnapshot[]>;
}

type Outcome<R> = { readonly ok: true; readonly value: R } | { readonly ok: false; readonly error: unknown };

/** The status a run ends with: an explicit disconnect, then a cancel or abort, then how the body ended. */
function finalStatus(disconnected: boolean, signal: AbortSignal, outcome: Outcome<unknown>): RunStatus {
  if (disconnected) return 'disconnect';
  if (signal.aborted || (!outcome.ok && isAbort(outcome.error, signal))) return 'aborted';
  return outcome.ok ? 'completed' : 'error';
}

function errorText(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

function isAbort(error: unknown, signal: AbortSignal): boolean {
  return (signal.aborted && error === signal.reason) || (error instanceof Error && error.name === 'AbortError');
}

/**
 * Create run snapshots over a {@link SnapshotStorage}.
 *
 * A run appends a `running` snapshot when it starts (the body does not run if that fails) and one
 * per `record`, in order, then a final one: `disconnect` if `disconnect()` was called, else
 * `aborted` if the run was cancelled or its signal fired (or the body threw an `AbortError`), else
 * `error` with the error text, else `completed`. The run resolves or rejects exactly as the body
 * did: a storage failure never replaces the body's error (it goes to `onEvent`); after a body that
 * succeeded it rejects with {@link SnapshotStorageError}.
 *
 * @example
 * const snapshots = createRunSnapshots({ storage: createMemorySnapshotStorage() });
 * await snapshots.run('run-1', async (h) => {
 *   h.record({ step: 'fetched', rows: 12 });
 *   h.record({ step: 'written' });
 * });
 * (await snapshots.resume('run-1')).status; // 'completed', state { step: 'written', rows: 12 }
 */
export function createRunSnapshots(given: RunSnapshotsOptions): RunSnapshots {
  const options = optionsOf('createRunSnapshots', given);
  const { storage, clock = systemClock } = options;

  function report(runId: string, error: unknown): void {
    try {
      options.onEvent?.({ type: 'storage_error', runId, error });
    } catch {
      // An observer's failure must not replace the body's outcome either.
    }
  }

  async function run<R>(
    runId: string,
    fn: (handle: RunHandle) => R | Promise<R>,
    runOptions: RunOptions = {},
  ): Promise<R> {
    let state = mergeState({}, runOptions.initialState ?? {});
    const controller = new AbortController();
    const external = runOptions.signal;
    const onAbort = (): void => controller.abort(external?.reason);
    if (external?.aborted === true) onAbort();
    else external?.addEventListener('abort', onAbort, { once: true });

    let failure: unknown;
    let finished = false;
    let disconnected = false;
    // The state and time are taken when a snapshot is asked for, not when the queue reaches it.
    const snapshotOf = (status: RunStatus, error?: string): SnapshotInput => ({
      status,
      state,
      at: clock.now(),
      ...(error === undefined ? {} : { error }),
    });
    const append = (snapshot: SnapshotInput): Promise<RunSnapshot> => storage.append(runId, snapshot);
    try {
      await append(snapshotOf('running'));
    } catch (cause) {
      external?.removeEventListener('abort', onAbort);
      throw new SnapshotStorageError('append', 'the run start could not be recorded; the run did not start', {
        cause,
        runId,
      });
    }
    // Appends run one at a time, in record order; a failure is remembered, never unhandled.
    let queue: Promise<void> = Promise.resolve();
    const handle: RunHandle = {
      runId,
      signal: controller.signal,
      get state() {
        return state;
      },
      record(patch) {
        if (finished)
          throw new GuardError('snapshot_run_finished', `Run \`${runId}\` has finished; \`record\` came too late`);
        state = mergeState(state, patch);
        const snapshot = snapshotOf('running');
        queue = queue
          .then(() => append(snapshot))
          .then(
            () => undefined,
            (error: unknown) => {
              failure ??= error;
            },
          );
      },
      abort: (reason) => controller.abort(reason),
      disconnect() {
        disconnected = true;
      },
      async flush() {
        await queue;
        if (failure !== undefined)
          throw new SnapshotStorageError('append', 'a snapshot could not be stored', { cause: failure, runId });
      },
    };

    let outcome: Outcome<R>;
    try {
      outcome = { ok: true, value: await fn(handle) };
    } catch (error) {
      outcome = { ok: false, error };
    }
    finished = true;
    external?.removeEventListener('abort', onAbort);
    const thrown = outcome.ok ? undefined : outcome.error;
    const status = finalStatus(disconnected, controller.signal, outcome);
    await queue;
    try {
      await append(snapshotOf(status, outcome.ok ? undefined : errorText(thrown)));
    } catch (error) {
      failure ??= error;
    }
    if (!outcome.ok) {
      if (failure !== undefined) report(runId, failure);
      throw thrown;
    }
    if (failure !== undefined) {
      throw new SnapshotStorageError('append', `a snapshot could not be stored (the run ended \`${status}\`)`, {
        cause: failure,
        runId,
      });
    }
    return outcome.value;
  }

  return {
    run,
    async resume(runId) {
      const latest = await storage.latest(runId);
      if (latest === null) throw new SnapshotNotFoundError(runId);
      return latest;
    },
    history: (runId) => storage.history(runId),
  };
}
