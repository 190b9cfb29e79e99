/**
 * The Redis backend (server at 127.0.0.1:6379, keys under a per-run prefix that is removed after);
 * its baseline is the driver's Lua scripts run with EVALSHA through the same client.
 */
import { randomKey } from '../../lib/random-key.js';
import { openRawRedis } from '../../lib/redis-raw.js';
import type { Backend } from '../backend.js';

const URL = 'redis://127.0.0.1:6379';

async function connect() {
  const { createClient } = await import('redis');
  const client = createClient({ url: URL, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

async function deleteByPrefix(client: Awaited<ReturnType<typeof connect>>, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = (await client.sendCommand(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '1000'])) as [
      string,
      string[],
    ];
    if (keys.length > 0) await client.sendCommand(['UNLINK', ...keys]);
    cursor = next;
  } while (cursor !== '0');
}

/** Redis through a node-redis client the bench owns. */
export const redisBackend: Backend = {
  name: 'redis',
  baseline:
    "the driver's Lua scripts run with EVALSHA through the same client (create script, then the CAS update script)",
  async available() {
    try {
      await import('../../../src/storage/redis.js');
    } catch (error) {
      return `driver not loadable (${error instanceof Error ? error.message : String(error)})`;
    }
    try {
      const client = await connect();
      await client.sendCommand(['PING']);
      await client.close();
      return null;
    } catch {
      return `no Redis server answering at ${URL}`;
    }
  },
  async open() {
    const { createRedisStorage } = await import('../../../src/storage/redis.js');
    const { CREATE_RECORD_SCRIPT, UPDATE_RECORD_SCRIPT } = await import('../../../src/storage/redis/scripts.js');
    const client = await connect();
    const run = `hyphae-bench:${randomKey().slice(0, 12)}:`;
    const storage = createRedisStorage({ client }, { prefix: `${run}ledger:` });
    const raw = await openRawRedis(client, `${run}raw:`, {
      create: CREATE_RECORD_SCRIPT,
      update: UPDATE_RECORD_SCRIPT,
    });
    return {
      storage: () => storage,
      baselines(writes) {
        const completed = writes.call.docs.at(-1) ?? '{}';
        return {
          call: { name: 'redis raw: create + update EVALSHA', start: () => raw.write(writes.call.docs) },
          replay: { name: 'redis raw: create EVALSHA meeting the record', start: () => raw.replay(completed) },
          sideEffect: { name: 'redis raw: create + 2 update EVALSHA', start: () => raw.write(writes.sideEffect.docs) },
        };
      },
      async close() {
        await storage.close();
        await deleteByPrefix(client, run);
        await client.close();
      },
    };
  },
};
