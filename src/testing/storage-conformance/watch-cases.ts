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
import type { ConformanceSuite } from './harness.js';
import { makeTestRecord } from './make-test-record.js';

/** How long a case waits for a notice the contract says must come. */
const NOTICE_WAIT_MS = 5_000;

type Watch = NonNullable<LedgerStorage['watch']>;

function watchOf(storage: LedgerStorage): Watch {
  assert.equal(typeof storage.watch, 'function', 'the driver was declared to offer `watch`, and has none');
  return (storage.watch as Watch).bind(storage);
}

/**
 * Update `key` from `writer` until `count()` moves past `before` (a subscription may take a moment
 * to start, and a notice sent before it is allowed to be lost); false when it never does.
 */
async function updateUntilNoticed(
  writer: LedgerStorage,
  key: string,
  count: () => number,
  before: number,
): Promise<boolean> {
  const deadline = Date.now() + NOTICE_WAIT_MS;
  while (Date.now() < deadline) {
    const current = await writer.get(key);
    assert.ok(current !== null, 'the record under watch disappeared');
    const next = { ...current, version: current.version + 1, updatedAt: current.updatedAt + 1 };
    assert.equal(await writer.update(key, current.version, next), true);
    for (let i = 0; i < 10; i++) {
      if (count() > before) return true;
      await sleep(10);
    }
  }
  return false;
}

/**
 * Register the `watch` cases when the driver declares it offers `watch`; otherwise one case checks
 * that it has none (a driver must not offer notices its conformance run never exercised).
 */
export function defineWatchCases(suite: ConformanceSuite): void {
  if (!suite.watch) {
    suite.test('offers no `watch`, as declared', async ({ open }) => {
      assert.equal((await open()).watch, undefined);
    });
    return;
  }
  suite.group('watch (optional change notices)', () => {
    suite.test(
      'a watcher hears of an update made by another client, and stops hearing when it stops',
      async ({ open }) => {
        const [watcher, writer] = [await open(), await open()];
        const watch = watchOf(watcher);
        if (watch === null) return;
        const record = makeTestRecord();
        await createNew(writer, record);
        let notices = 0;
        const stop = watch(record.key, () => {
          notices += 1;
        });
        assert.equal(await updateUntilNoticed(writer, record.key, () => notices, 0), true, 'no notice arrived');
        stop();
        stop();
        // Notices already on their way may still land; after a quiet spell none may.
        await sleep(200);
        const settled = notices;
        const current = await writer.get(record.key);
        assert.ok(current !== null);
        await writer.update(record.key, current.version, { ...current, version: current.version + 1 });
        await sleep(200);
        assert.equal(notices, settled, 'a stopped watch was still notified');
      },
    );

    suite.test('a watch on one key does not hear updates of another', async ({ open }) => {
      const [watcher, writer] = [await open(), await open()];
      const watch = watchOf(watcher);
      const watched = makeTestRecord();
      const other = makeTestRecord();
      await createNew(writer, watched);
      await createNew(writer, other);
      let heard = 0;
      let control = 0;
      const stops = [
        watch(other.key, () => {
          heard += 1;
        }),
        watch(watched.key, () => {
          control += 1;
        }),
      ];
      // Once the watched key has been heard, the subscriptions are live: the other key was quiet.
      assert.equal(await updateUntilNoticed(writer, watched.key, () => control, 0), true, 'no notice arrived');
      assert.equal(heard, 0);
      for (const stop of stops) stop();
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
