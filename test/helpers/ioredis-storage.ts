/**
 * A Redis ledger storage over an ioredis client of its own, for the tests that open one storage
 * per contender or worker. The storage never closes a client it was given, so this one's `close()`
 * ends the client too.
 */
import { Redis } from 'ioredis';
import type { LedgerStorage } from '../../src/index.js';
import { createRedisStorage, fromIoredis } from '../../src/storage/redis.js';

/** A storage under `prefix` at `url`, whose `close()` also disconnects its ioredis client. */
export function openIoredisStorage(url: string, prefix: string): LedgerStorage {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on('error', () => {});
  const storage = createRedisStorage({ client: fromIoredis(client) }, { prefix });
  return {
    ...storage,
    async close() {
      await storage.close();
      client.disconnect();
    },
  };
}
