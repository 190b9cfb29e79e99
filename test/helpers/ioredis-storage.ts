/**
 * A Redis ledger storage over an ioredis client of its own, for the tests that open one storage
 * per contender or worker. The storage never closes a client it was given, so this one's `close()`
 * ends the client too.
 */
import { Redis } from 'ioredis';
import type { LedgerStorage } from '../../src/index.js';
import { createRedisStorage, fromIoredis, type RedisStorageSettings } from '../../src/storage/redis.js';

/** A storage at `url` (a prefix, or the driver's settings), whose `close()` also disconnects its ioredis client. */
export function openIoredisStorage(url: string, settings: string | RedisStorageSettings): LedgerStorage {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  const storage = createRedisStorage(
    { client: fromIoredis(client) },
    typeof settings === 'string' ? { prefix: settings } : settings,
  );
  return {
    ...storage,
    async close() {
      await storage.close();
      client.disconnect();
    },
  };
}

/** The Redis client library a test runs the driver over. */
export type RedisClientKind = 'node-redis' | 'ioredis';

/** A storage at `url` over either client library; `close()` ends the client it made. */
export function redisStorageOn(url: string, client: RedisClientKind, settings: RedisStorageSettings): LedgerStorage {
  return client === 'node-redis' ? createRedisStorage({ url }, settings) : openIoredisStorage(url, settings);
}
