/**
 * Conformance cases for the optional `watch`: change notices across clients of one store.
 *
 * Notices are best effort by contract, so each case waits a bounded time (real time) for a notice
 * it must eventually see; none asserts on how soon it arrives.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import type { LedgerStorage } from '../../storage/ledger-storage.js';
import { createNew } from './assertions.js';
import { type ConformanceSuite, defineOptionalCases } from './harness.js';
import { makeTestRecord } from './make-test-record.js';

/** How long a case waits for a notice the contract says must come. */
const NOTICE_WAIT_MS = 5_000;

type Watch = NonNullable<LedgerStorage['watch']>;

function watchOf(storage: LedgerStorage): Watch {
  assert.equal(typeof storage.watch, 'function', 'the driver was declared to offer `watch`, and has none');
  return (storage.watch as Watch).bind(storage);
}

/** A watch on `key` whose notices are counted. */
interface CountedWatch {
  readonly count: () => number;
  readonly stop: () => void;
}

/** Watch `key` and wait for the notice that says the watch is live (the contract sends one). */
async function liveWatch(watch: Watch, key: string): Promise<CountedWatch> {
  let notices = 0;
  const stop = watch(key, () => {
    notices += 1;
  });
  const deadline = Date.now() + NOTICE_WAIT_MS;
  while (notices === 0) {
    assert.ok(Date.now() < deadline, 'the watch never said it was live');
    await sleep(5);
  }
  return { count: () => notices, stop };
}

/** Bump the version of the record under `key` from `writer`. */
async function touch(writer: LedgerStorage, key: string): Promise<void> {
  const current = await writer.get(key);
  assert.ok(current !== null, 'the record under watch disappeared');
  const next = { ...current, version: current.version + 1, updatedAt: current.updatedAt + 1 };
  assert.equal(await writer.update(key, current.version, next), true);
}

/** Wait until `count()` moves past `before`; false when it never does. */
async function noticed(count: () => number, before: number): Promise<boolean> {
  const deadline = Date.now() + NOTICE_WAIT_MS;
  while (Date.now() < deadline) {
    if (count() > before) return true;
    await sleep(5);
  }
  return false;
}

/**
 * Register the `watch` cases when the driver declares it offers `watch`; otherwise one case checks
 * that it has none (a driver must not offer notices its conformance run never exercised).
 */
export function defineWatchCases(suite: ConformanceSuite): void {
  const titles = { absent: 'offers no `watch`, as declared', group: 'watch (optional change notices)' };
  defineOptionalCases(suite, 'watch', titles, () => {
    suite.test(
      'a live watch hears of an update by another client, and stops hearing when it stops',
      async ({ open }) => {
        const [watcher, writer] = [await open(), await open()];
        const record = makeTestRecord();
        await createNew(writer, record);
        const watched = await liveWatch(watchOf(watcher), record.key);
        const before = watched.count();
        await touch(writer, record.key);
        assert.equal(await noticed(watched.count, before), true, 'the update was not heard');
        watched.stop();
        watched.stop();
        // Notices already on their way may still land; after a quiet spell none may.
        await sleep(200);
        const settled = watched.count();
        await touch(writer, record.key);
        await sleep(200);
        assert.equal(watched.count(), settled, 'a stopped watch was still notified');
      },
    );

    suite.test('a watch on one key does not hear updates of another', async ({ open }) => {
      const [watcher, writer] = [await open(), await open()];
      const quiet = makeTestRecord();
      const busy = makeTestRecord();
      await createNew(writer, quiet);
      await createNew(writer, busy);
      const watch = watchOf(watcher);
      const [onQuiet, onBusy] = [await liveWatch(watch, quiet.key), await liveWatch(watch, busy.key)];
      const [quietBefore, busyBefore] = [onQuiet.count(), onBusy.count()];
      await touch(writer, busy.key);
      // Once the busy key has been heard, a notice for the quiet key would have arrived too.
      assert.equal(await noticed(onBusy.count, busyBefore), true, 'the update was not heard');
      assert.equal(onQuiet.count(), quietBefore);
      onQuiet.stop();
      onBusy.stop();
    });

    suite.test('watching after close, or a store that is gone, never throws', async ({ open }) => {
      const watcher = await open();
      const watch = watchOf(watcher);
      await watcher.close();
      const stop = watch(makeTestRecord().key, () => assert.fail('a closed store sent a notice'));
      stop();
    });
  });
}
