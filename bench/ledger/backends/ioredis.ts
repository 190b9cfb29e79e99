/**
 * Redis through an ioredis client (`fromIoredis`), on the same server as the node-redis backend; its
 * baseline is the driver's Lua scripts sent with ioredis's own `call` through the same client.
 */
import { REDIS_URL } from '../../lib/redis-bench-client.js';
import type { Backend } from '../backend.js';
import { redisSession } from './redis.js';

/** A connected ioredis client that fails fast instead of reconnecting. */
async function connectIoredis() {
  const { Redis } = await import('ioredis');
  const client = new Redis(REDIS_URL, { lazyConnect: true, connectTimeout: 1000, retryStrategy: () => null });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Redis through an ioredis client the bench owns. */
export const ioredisBackend: Backend = {
  name: 'ioredis',
  target: {
    kind: 'ratio',
    max: 1.3,
    text: 'Redis through ioredis: ledgered call ≤ 1.3× its raw round trips (2 EVALSHA by `call`)',
  },
  baseline:
    "the driver's Lua scripts sent with ioredis `call('EVALSHA', …)` through the same client (create script, then the CAS update script)",
  async available() {
    try {
      await import('ioredis');
    } catch {
      return 'the `ioredis` package is not installed';
    }
    try {
      const client = await connectIoredis();
      await client.ping();
      client.disconnect();
      return null;
    } catch {
      return `no Redis server answering at ${REDIS_URL}`;
    }
  },
  async open() {
    const { createRedisStorage, fromIoredis } = await import('../../../src/storage/redis.js');
    const client = await connectIoredis();
    // The baselines go through ioredis's own `call`, as an application using it would send a command.
    const direct = { sendCommand: (args: readonly string[]) => client.call(args[0] as string, args.slice(1)) };
    return redisSession(
      'ioredis',
      direct,
      (prefix) => createRedisStorage({ client: fromIoredis(client) }, { prefix }),
      () => client.quit(),
    );
  },
};
