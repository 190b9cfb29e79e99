/**
 * In-memory snapshot storage: for tests and single-process development; lost with the process.
 */

import {
  type RunSnapshot,
  type SnapshotInput,
  type SnapshotStorage,
  SnapshotStorageError,
} from './snapshot-storage.js';

/**
 * Create an in-memory {@link SnapshotStorage}. Snapshots are copied in and out, so no caller can
 * change stored history by reference.
 *
 * @example
 * const snapshots = createRunSnapshots({ storage: createMemorySnapshotStorage() });
 */
export function createMemorySnapshotStorage(): SnapshotStorage {
  const runs = new Map<string, RunSnapshot[]>();
  let closed = false;

  function assertOpen(operation: string, runId: string): void {
    if (closed) throw new SnapshotStorageError(operation, 'the memory snapshot storage is closed', { runId });
  }

  return {
    async append(runId: string, snapshot: SnapshotInput): Promise<RunSnapshot> {
      assertOpen('append', runId);
      const history = runs.get(runId) ?? [];
      runs.set(runId, history);
      const stored: RunSnapshot = structuredClone({ ...snapshot, runId, seq: history.length });
      history.push(stored);
      return structuredClone(stored);
    },
    async latest(runId: string): Promise<RunSnapshot | null> {
      assertOpen('latest', runId);
      const last = runs.get(runId)?.at(-1);
      return last === undefined ? null : structuredClone(last);
    },
    async history(runId: string): Promise<RunSnapshot[]> {
      assertOpen('history', runId);
      return structuredClone(runs.get(runId) ?? []);
    },
    async close(): Promise<void> {
      closed = true;
    },
  };
}
