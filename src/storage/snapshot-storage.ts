/**
 * Run snapshot records and the small append-only store interface every snapshot driver implements.
 */

import type { ValueOf } from '../core/vocabulary.js';
import { GuardError, type GuardErrorOptions } from '../errors.js';

/** How a run stands in a snapshot. */
export const RunStatus = {
  /** Written when the run starts and on every `record` while it runs. */
  running: 'running',
  completed: 'completed',
  /** Cancelled through the handle, or its abort signal fired. */
  aborted: 'aborted',
  error: 'error',
  /** The handle's `disconnect()` was called (the client went away). */
  disconnect: 'disconnect',
} as const;

/** A run status. */
export type RunStatus = ValueOf<typeof RunStatus>;

/** The state of a run: a JSON object built from the run's `record` patches. */
export type RunState = Readonly<Record<string, unknown>>;

/** What a run writes; the store adds `runId` and `seq`. */
export interface SnapshotInput {
  readonly status: RunStatus;
  readonly state: RunState;
  /** The error text, for `error` (and for `aborted` or `disconnect` ending in an error). */
  readonly error?: string;
  /** Epoch ms from the injected clock. */
  readonly at: number;
}

/** One stored snapshot. */
export interface RunSnapshot extends SnapshotInput {
  readonly runId: string;
  /** 0-based position in the run's history, assigned by the store. */
  readonly seq: number;
}

/** Append-only storage of run snapshots; drivers contain no policy. */
export interface SnapshotStorage {
  /** Append a snapshot to the run's history; resolves with the stored snapshot (`seq` assigned). */
  append(runId: string, snapshot: SnapshotInput): Promise<RunSnapshot>;
  /** The newest snapshot of the run, or null. */
  latest(runId: string): Promise<RunSnapshot | null>;
  /** Every snapshot of the run, oldest first. */
  history(runId: string): Promise<RunSnapshot[]>;
  /** Release the store; a second call does nothing. */
  close(): Promise<void>;
}

/** A snapshot store failed, or holds data that cannot be read. */
export class SnapshotStorageError extends GuardError {
  readonly operation: string;
  readonly runId: string | undefined;

  constructor(operation: string, reason: string, options: GuardErrorOptions & { readonly runId?: string } = {}) {
    const run = options.runId === undefined ? '' : ` of run \`${options.runId}\``;
    super('snapshot_storage_error', `Snapshot storage failed during \`${operation}\`${run}: ${reason}`, options);
    this.operation = operation;
    this.runId = options.runId;
  }
}
