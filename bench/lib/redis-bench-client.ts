/**
 * node-redis clients for the benches that need several of them (one per racing caller), and the
 * clean-up of what a run wrote under its prefix. The driver is loaded on first connect, so runs that
 * measure only the memory and SQLite backends do not need it installed.
 */

import { randomKey } from './random-key.js';

/** The Redis server every bench uses. */
export const REDIS_URL = 'redis://127.0.0.1:6379';

/** A connected node-redis v5 client. */
export type BenchRedisClient = Awaited<ReturnType<typeof connectRedis>>;

/** Connect a client that fails fast instead of reconnecting (a bench must not hang on a dead server). */
export async function connectRedis() {
  const { createClient } = await import('redis');
  const client = createClient({ url: REDIS_URL, socket: { connectTimeout: 1000, reconnectStrategy: false } });
  client.on('error', () => undefined);
  await client.connect();
  return client;
}

/** Null when a server answers, else why not. */
export async function redisUnavailable(): Promise<string | null> {
  try {
    await import('redis');
  } catch {
    return 'the `redis` package is not installed';
  }
  try {
    const client = await connectRedis();
    await client.sendCommand(['PING']);
    await client.close();
    return null;
  } catch {
    return `no Redis server answering at ${REDIS_URL}`;
  }
}

/** Remove every key under `prefix` (SCAN + UNLINK, never KEYS). */
export async function deleteByPrefix(
  client: { sendCommand(args: string[]): Promise<unknown> },
  prefix: string,
): Promise<void> {
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

/**
 * Run `body` with a client of its own and a key prefix of its own on the bench's server, then delete
 * every key under the prefix and close the client. When no server answers, say why (after `what`)
 * and fail the process instead.
 */
export async function onBenchRedis(
  what: string,
  body: (client: BenchRedisClient, run: string) => Promise<void>,
): Promise<void> {
  const unavailable = await redisUnavailable();
  if (unavailable !== null) {
    console.error(`${what}: ${unavailable}`);
    process.exitCode = 1;
    return;
  }
  const run = `hyphae-bench:${randomKey().slice(0, 12)}:`;
  const client = await connectRedis();
  try {
    await body(client, run);
  } finally {
    await deleteByPrefix(client, run);
    await client.close();
  }
}
