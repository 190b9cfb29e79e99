/**
 * node-redis clients for the benches that need several of them (one per racing caller), and the
 * clean-up of what a run wrote under its prefix. The driver is loaded on first connect, so runs that
 * measure only the memory and SQLite backends do not need it installed.
 */

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
