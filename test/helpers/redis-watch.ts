/**
 * The change-notice lifecycle both Redis client flavours must show when the storage subscribes on a
 * duplicate of the caller's client: live, hearing, unsubscribing, and gone after `close()`.
 */
import { expect } from 'vitest';
import type { RedisStorage } from '../../src/storage/redis.js';
import { makeTestRecord } from '../../src/testing/storage-conformance.js';

/** Poll `condition` every 10 ms, for up to 5 s. */
export async function eventually(condition: () => Promise<boolean> | boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/**
 * Watch a record through `storage` while `writer` updates it: the watch goes live (one notice),
 * hears the update, unsubscribes when stopped, subscribes again, and its subscriber is gone after
 * `storage.close()`. `subscribers(key)` counts the server's subscribers of the record's channel.
 */
export async function expectWatchLifecycle(
  storage: RedisStorage,
  writer: RedisStorage,
  subscribers: (key: string) => Promise<number>,
): Promise<void> {
  const record = makeTestRecord();
  await writer.create(record);
  let notices = 0;
  const stop = storage.watch(record.key, () => {
    notices += 1;
  });
  await eventually(async () => (await subscribers(record.key)) === 1, 'the subscription');
  await eventually(() => notices === 1, 'the notice that the watch is live');
  expect(await writer.update(record.key, 1, { ...record, version: 2 })).toBe(true);
  await eventually(() => notices === 2, 'the notice of the update');
  stop();
  await eventually(async () => (await subscribers(record.key)) === 0, 'the unsubscribe');

  storage.watch(record.key, () => undefined);
  await eventually(async () => (await subscribers(record.key)) === 1, 'the second subscription');
  await storage.close();
  // The server drops the subscription when it sees the connection end, a moment after close().
  await eventually(async () => (await subscribers(record.key)) === 0, 'the subscriber to be gone');
}
