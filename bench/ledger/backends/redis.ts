/**
 * The Redis backend (server at 127.0.0.1:6379, keys under a per-run prefix that is removed after);
 * its baseline is the driver's Lua scripts run with EVALSHA through the same client.
 */
import { randomKey } from '../../lib/random-key.js';
import { connectRedis, deleteByPrefix, redisUnavailable } from '../../lib/redis-bench-client.js';
import { openRawRedis } from '../../lib/redis-raw.js';
import type { Backend } from '../backend.js';

/** Redis through a node-redis client the bench owns. */
export const redisBackend: Backend = {
  name: 'redis',
  target: { kind: 'ratio', max: 1.3, text: 'Redis ledgered call ≤ 1.3× its raw round trips (2 EVALSHA)' },
  baseline:
    "the driver's Lua scripts run with EVALSHA through the same client (create script, then the CAS update script)",
  async available() {
    try {
      await import('../../../src/storage/redis.js');
    } catch (error) {
      return `driver not loadable (${error instanceof Error ? error.message : String(error)})`;
    }
    return redisUnavailable();
  },
  async open() {
    const { createRedisStorage } = await import('../../../src/storage/redis.js');
    const { CREATE_RECORD_SCRIPT, UPDATE_RECORD_SCRIPT } = await import('../../../src/storage/redis/scripts.js');
    const client = await connectRedis();
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
