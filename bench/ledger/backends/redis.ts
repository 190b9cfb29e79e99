/**
 * The Redis backend (server at 127.0.0.1:6379, keys under a per-run prefix that is removed after);
 * its baseline is the driver's Lua scripts run with EVALSHA through the same client.
 */

import type { LedgerStorage } from '../../../src/index.js';
import { randomKey } from '../../lib/random-key.js';
import { connectRedis, deleteByPrefix, redisUnavailable } from '../../lib/redis-bench-client.js';
import { openRawRedis, type RawRedisClient } from '../../lib/redis-raw.js';
import type { Backend, BackendSession } from '../backend.js';

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
    const client = await connectRedis();
    return redisSession(
      'redis',
      client,
      (prefix) => createRedisStorage({ client }, { prefix }),
      () => client.close(),
    );
  },
};

/**
 * A Redis backend's session: the storage under a per-run prefix, and as baselines the driver's
 * scripts sent directly through `client` (the same connection), with the documents the ledger wrote.
 */
export async function redisSession(
  label: string,
  client: RawRedisClient,
  openStorage: (prefix: string) => LedgerStorage,
  closeClient: () => Promise<unknown>,
): Promise<BackendSession> {
  const { CREATE_RECORD_SCRIPT, UPDATE_RECORD_SCRIPT } = await import('../../../src/storage/redis/scripts.js');
  const run = `hyphae-bench:${randomKey().slice(0, 12)}:`;
  const storage = openStorage(`${run}ledger:`);
  const raw = await openRawRedis(client, `${run}raw:`, { create: CREATE_RECORD_SCRIPT, update: UPDATE_RECORD_SCRIPT });
  return {
    storage: () => storage,
    baselines(writes) {
      const completed = writes.call.docs.at(-1) ?? '{}';
      return {
        call: { name: `${label} raw: create + update EVALSHA`, start: () => raw.write(writes.call.docs) },
        replay: { name: `${label} raw: create EVALSHA meeting the record`, start: () => raw.replay(completed) },
        sideEffect: { name: `${label} raw: create + 2 update EVALSHA`, start: () => raw.write(writes.sideEffect.docs) },
      };
    },
    async close() {
      await storage.close();
      await deleteByPrefix(client, run);
      await closeClient();
    },
  };
}
