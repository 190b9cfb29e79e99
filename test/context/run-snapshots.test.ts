import { describe, expect, it } from 'vitest';
import { mergeState } from '../../src/context/snapshots/merge-state.js';
import { createMemorySnapshotStorage } from '../../src/storage/memory-snapshots.js';
import { describeSnapshotRuns } from './snapshot-suite.js';

describeSnapshotRuns('memory', async () => createMemorySnapshotStorage());

describe('memory snapshot storage', () => {
  it('copies snapshots in and out and refuses use after close (twice is fine)', async () => {
    const storage = createMemorySnapshotStorage();
    const state = { list: [1] };

    const stored = await storage.append('r', { status: 'running', state, at: 1 });
    state.list.push(2);
    (stored.state as { list: number[] }).list.push(3);

    expect((await storage.latest('r'))?.state).toEqual({ list: [1] });
    await storage.close();
    await storage.close();
    await expect(storage.latest('r')).rejects.toThrow(
      'Snapshot storage failed during `latest` of run `r`: the memory snapshot storage is closed',
    );
  });
});

describe('mergeState', () => {
  it('is shallow: later keys win, nested objects are replaced, undefined deletes, input untouched', () => {
    const state = Object.freeze({ a: 1, nested: { x: 1, y: 2 }, gone: true });

    const next = mergeState(state, { a: 2, nested: { x: 9 }, gone: undefined });

    expect(next).toEqual({ a: 2, nested: { x: 9 } });
    expect(state).toEqual({ a: 1, nested: { x: 1, y: 2 }, gone: true });
    expect(Object.isFrozen(next)).toBe(true);
    expect(() => mergeState({}, [] as never)).toThrow('`mergeState`: `patch` must be a plain object, got an array');
  });
});
