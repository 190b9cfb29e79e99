/**
 * The run-snapshot behaviour every snapshot storage must give, run against memory and SQLite.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { SnapshotNotFoundError, SnapshotStorageError } from '../../src/context/errors.js';
import { createRunSnapshots, type SnapshotEvent } from '../../src/context/snapshots/run-snapshots.js';
import { createManualClock } from '../../src/core/clock.js';
import type { RunSnapshot, SnapshotStorage } from '../../src/storage/snapshot-storage.js';

/** `storage` whose appends fail from the `failFrom`-th call on (0-based). */
export function failingAppends(storage: SnapshotStorage, failFrom: number): SnapshotStorage {
  let calls = 0;
  return {
    ...storage,
    append(runId, snapshot) {
      calls++;
      return calls - 1 >= failFrom ? Promise.reject(new Error('disk full')) : storage.append(runId, snapshot);
    },
  };
}

const brief = (history: readonly RunSnapshot[]) => history.map((s) => [s.seq, s.status, s.state]);

export function describeSnapshotRuns(name: string, open: () => Promise<SnapshotStorage>): void {
  describe(`run snapshots on ${name}`, () => {
    const opened: SnapshotStorage[] = [];
    const storage = async (): Promise<SnapshotStorage> => {
      const s = await open();
      opened.push(s);
      return s;
    };
    afterEach(async () => {
      for (const s of opened.splice(0)) await s.close();
    });

    it('records start, every patch and `completed`, merging shallowly (later keys win, undefined deletes)', async () => {
      const snapshots = createRunSnapshots({ storage: await storage(), clock: createManualClock(5) });

      const value = await snapshots.run('run-1', async (h) => {
        h.record({ step: 'fetch', rows: 3, draft: { a: 1 } });
        h.record({ step: 'write', draft: undefined, nested: { b: 2 } });
        await h.flush();
        return h.state;
      });

      expect(value).toEqual({ step: 'write', rows: 3, nested: { b: 2 } });
      expect(brief(await snapshots.history('run-1'))).toEqual([
        [0, 'running', {}],
        [1, 'running', { step: 'fetch', rows: 3, draft: { a: 1 } }],
        [2, 'running', { step: 'write', rows: 3, nested: { b: 2 } }],
        [3, 'completed', { step: 'write', rows: 3, nested: { b: 2 } }],
      ]);
      expect(await snapshots.resume('run-1')).toMatchObject({ runId: 'run-1', seq: 3, status: 'completed', at: 5 });
    });

    it('records `error` with the error text and re-throws the body error', async () => {
      const snapshots = createRunSnapshots({ storage: await storage() });

      const run = snapshots.run('run-err', async (h) => {
        h.record({ step: 1 });
        throw new TypeError('bad input');
      });

      await expect(run).rejects.toThrow(TypeError);
      expect(await snapshots.resume('run-err')).toMatchObject({
        status: 'error',
        error: 'TypeError: bad input',
        state: { step: 1 },
      });
    });

    it('records `aborted` when the caller signal fires or the run is cancelled', async () => {
      const snapshots = createRunSnapshots({ storage: await storage() });
      const controller = new AbortController();

      const bySignal = snapshots.run(
        'run-signal',
        (h) =>
          new Promise((_resolve, reject) => {
            h.signal.addEventListener('abort', () => reject(h.signal.reason));
            controller.abort(new DOMException('user left', 'AbortError'));
          }),
        { signal: controller.signal },
      );
      const cancelled = await snapshots.run('run-cancel', async (h) => {
        h.abort();
        return h.signal.aborted;
      });

      await expect(bySignal).rejects.toMatchObject({ name: 'AbortError' });
      expect(await snapshots.resume('run-signal')).toMatchObject({ status: 'aborted', error: 'AbortError: user left' });
      expect(cancelled).toBe(true);
      expect((await snapshots.resume('run-cancel')).status).toBe('aborted');
    });

    it('records `disconnect` when the handle says so', async () => {
      const snapshots = createRunSnapshots({ storage: await storage() });

      await snapshots.run('run-dc', (h) => {
        h.record({ sent: 2 });
        h.disconnect();
      });

      expect(await snapshots.resume('run-dc')).toMatchObject({ status: 'disconnect', state: { sent: 2 } });
    });

    it('keeps a history per run across runs and resumes from the latest state', async () => {
      const snapshots = createRunSnapshots({ storage: await storage() });
      await snapshots.run('run-r', (h) => h.record({ page: 1 }));

      const previous = await snapshots.resume('run-r');
      await snapshots.run('run-r', (h) => h.record({ page: Number(h.state.page) + 1 }), {
        initialState: previous.state,
      });

      expect((await snapshots.history('run-r')).map((s) => s.seq)).toEqual([0, 1, 2, 3, 4, 5]);
      expect((await snapshots.resume('run-r')).state).toEqual({ page: 2 });
      expect(await snapshots.history('other')).toEqual([]);
    });

    it('resume of an unknown run is a typed error', async () => {
      const snapshots = createRunSnapshots({ storage: await storage() });

      await expect(snapshots.resume('nope')).rejects.toThrow(SnapshotNotFoundError);
      await expect(snapshots.resume('nope')).rejects.toMatchObject({ code: 'snapshot_not_found', runId: 'nope' });
    });

    it('a storage failure never replaces the body error; it is reported instead', async () => {
      const events: SnapshotEvent[] = [];
      const snapshots = createRunSnapshots({
        storage: failingAppends(await storage(), 1),
        onEvent: (e) => events.push(e),
      });
      const mine = new Error('my own failure');

      const run = snapshots.run('run-f', (h) => {
        h.record({ step: 1 });
        throw mine;
      });

      await expect(run).rejects.toBe(mine);
      expect(events).toEqual([
        { type: 'storage_error', runId: 'run-f', error: expect.objectContaining({ message: 'disk full' }) },
      ]);
    });

    it('a storage failure after a successful body rejects with SnapshotStorageError', async () => {
      const snapshots = createRunSnapshots({ storage: failingAppends(await storage(), 1) });

      const run = snapshots.run('run-g', () => 'done');

      await expect(run).rejects.toThrow(SnapshotStorageError);
      await expect(snapshots.run('run-h', () => 1)).rejects.toMatchObject({
        code: 'snapshot_storage_error',
        cause: { message: 'disk full' },
      });
    });

    it('does not start the body when the start cannot be recorded; flush surfaces a failed append', async () => {
      let ran = false;
      const dead = createRunSnapshots({ storage: failingAppends(await storage(), 0) });
      const flaky = createRunSnapshots({ storage: failingAppends(await storage(), 1) });

      await expect(dead.run('x', () => (ran = true))).rejects.toThrow('the run did not start');
      const flushed = flaky.run('y', async (h) => {
        h.record({ a: 1 });
        await h.flush();
      });

      expect(ran).toBe(false);
      await expect(flushed).rejects.toThrow(
        'Snapshot storage failed during `append` of run `y`: a snapshot could not be stored',
      );
    });

    it('refuses a record after the run finished and patches that are not JSON', async () => {
      const snapshots = createRunSnapshots({ storage: await storage() });
      let late: ((patch: Record<string, unknown>) => void) | undefined;

      await expect(snapshots.run('bad', (h) => h.record({ n: Number.NaN }))).rejects.toMatchObject({
        code: 'non_json_value',
      });
      await snapshots.run('late', (h) => {
        late = (patch) => h.record(patch);
      });

      expect(() => late?.({ a: 1 })).toThrow('Run `late` has finished; `record` came too late');
    });
  });
}
