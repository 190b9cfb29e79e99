/**
 * Servers whose connections the chaos test kills: only the connections of the storages under test,
 * which carry a name unique to the run (a PostgreSQL `application_name`, a Redis `CLIENT SETNAME`),
 * so other tests sharing the server are never touched. The admin connection that kills them has a
 * different name and is never a target.
 */
import { Cluster, Redis } from 'ioredis';
import pg from 'pg';
import { createClient, createCluster } from 'redis';
import type { LedgerStorage } from '../../src/index.js';
import { createPostgresStorage } from '../../src/storage/postgres.js';
import { createRedisStorage, fromIoredis, type RedisStorage } from '../../src/storage/redis.js';
import { POSTGRES_URL, REDIS_URL } from './integration.js';
import { type ClusterClientKind, startOwnCluster } from './redis-cluster.js';
import { deleteRedisKeys, dropPostgresTables, runTag } from './server-stores.js';

/** A server, the storages under test on it, and a way to kill their connections. */
export interface ChaosTarget {
  readonly name: 'redis' | 'ioredis' | 'postgres';
  /** How the target recognises its own connections (for reports). */
  readonly marker: string;
  /** One more storage instance on its own client or pool, whose connections `kill()` reaches. */
  open(index: number): Promise<LedgerStorage>;
  /** Kill every current connection of the storages under test; resolves with how many were killed. */
  kill(): Promise<number>;
  /** End the clients and pools, remove the keys or tables, close the admin connection. */
  dispose(): Promise<void>;
}

const TERMINATE_OURS = `select pg_terminate_backend(pid) from pg_stat_activity
where datname = current_database() and pid <> pg_backend_pid() and application_name = $1`;

/** PostgreSQL: one `pg.Pool` per storage, all with the run's `application_name`. */
export async function postgresChaosTarget(): Promise<ChaosTarget> {
  const tag = runTag();
  const applicationName = `hyphae-chaos-${tag}`;
  const tablePrefix = `chaos_${tag}_`;
  const admin = new pg.Client({ connectionString: POSTGRES_URL, application_name: `hyphae-chaos-admin-${tag}` });
  admin.on('error', () => {});
  await admin.connect();
  const pools: pg.Pool[] = [];
  return {
    name: 'postgres',
    marker: `application_name=${applicationName}`,
    async open() {
      const pool = new pg.Pool({
        connectionString: POSTGRES_URL,
        application_name: applicationName,
        max: 4,
        connectionTimeoutMillis: 5_000,
      });
      // A terminated idle connection is reported as a pool 'error' event; unheard, it would crash.
      pool.on('error', () => {});
      pools.push(pool);
      const storage = createPostgresStorage({ pool }, { tablePrefix });
      await storage.ensureSchema();
      return storage;
    },
    async kill() {
      return (await admin.query(TERMINATE_OURS, [applicationName])).rowCount ?? 0;
    },
    async dispose() {
      await Promise.all(pools.map((pool) => pool.end().catch(() => {})));
      await admin.end().catch(() => {});
      await dropPostgresTables(POSTGRES_URL, tablePrefix);
    },
  };
}

/** The ids of the clients named `name` in a `CLIENT LIST` reply. */
export function clientIdsNamed(list: string, name: string): string[] {
  return list
    .split('\n')
    .filter((line) => /(?:^|\s)name=(\S*)/.exec(line)?.[1] === name)
    .flatMap((line) => /(?:^|\s)id=(\d+)/.exec(line)?.[1] ?? []);
}

/**
 * Kill every Redis connection named `name` of one type (`normal`, or `pubsub` for subscribers);
 * resolves with how many were killed. Connections of other tests, which share the server, are
 * never touched.
 */
export async function killClientsNamed(
  admin: { sendCommand(args: string[]): Promise<unknown> },
  name: string,
  type: 'normal' | 'pubsub' = 'normal',
): Promise<number> {
  const list = String(await admin.sendCommand(['CLIENT', 'LIST', 'TYPE', type]));
  let killed = 0;
  // One ID per command: on Redis 7.0 several filters in one CLIENT KILL must all match.
  for (const id of clientIdsNamed(list, name)) {
    killed += Number(await admin.sendCommand(['CLIENT', 'KILL', 'ID', id]));
  }
  return killed;
}

/**
 * Redis: one node-redis client per storage, named with `CLIENT SETNAME` (node-redis sends it again
 * on every reconnect). Even-numbered clients queue commands while reconnecting (node-redis's
 * default); odd-numbered ones fail them at once, as the driver's own URL connection does.
 */
export async function redisChaosTarget(): Promise<ChaosTarget> {
  const tag = runTag();
  const clientName = `hyphae-chaos-${tag}`;
  const prefix = `hyphae-test:chaos:${tag}:`;
  const admin = createClient({ url: REDIS_URL, name: `hyphae-chaos-admin-${tag}` });
  admin.on('error', () => {});
  await admin.connect();
  const clients: ReturnType<typeof createClient>[] = [];
  const storages: RedisStorage[] = [];
  return {
    name: 'redis',
    marker: `CLIENT SETNAME ${clientName}`,
    async open(index) {
      const client = createClient({
        url: REDIS_URL,
        name: clientName,
        disableOfflineQueue: index % 2 === 1,
        socket: { connectTimeout: 5_000, reconnectStrategy: (retries: number) => Math.min(5 * 2 ** retries, 100) },
      });
      client.on('error', () => {});
      await client.connect();
      clients.push(client);
      const storage = createRedisStorage({ client }, { prefix });
      storages.push(storage);
      return storage;
    },
    kill: () => killClientsNamed(admin, clientName),
    async dispose() {
      // Each storage closes the notice subscriber it may have opened; the clients are the test's.
      await Promise.allSettled(storages.map((storage) => storage.close()));
      for (const client of clients) {
        if (client.isOpen) client.destroy();
      }
      await admin.close().catch(() => {});
      await deleteRedisKeys(REDIS_URL, prefix);
    },
  };
}

/**
 * Redis through ioredis clients (`fromIoredis`), named with ioredis's `connectionName` (sent again on
 * every reconnect). Even-numbered clients keep ioredis's defaults: commands wait offline and those in
 * flight when the connection dies are sent again after the reconnect. Odd-numbered ones fail at once.
 */
export async function ioredisChaosTarget(): Promise<ChaosTarget> {
  const tag = runTag();
  const clientName = `hyphae-chaos-io-${tag}`;
  const prefix = `hyphae-test:chaos-io:${tag}:`;
  const admin = createClient({ url: REDIS_URL, name: `hyphae-chaos-admin-${tag}` });
  admin.on('error', () => {});
  await admin.connect();
  const clients: Redis[] = [];
  const storages: RedisStorage[] = [];
  return {
    name: 'ioredis',
    marker: `ioredis connectionName ${clientName}`,
    async open(index) {
      const failFast = index % 2 === 1;
      const client = new Redis(REDIS_URL, {
        connectionName: clientName,
        lazyConnect: true,
        connectTimeout: 5_000,
        retryStrategy: (times: number) => Math.min(5 * 2 ** times, 100),
        ...(failFast ? { enableOfflineQueue: false, maxRetriesPerRequest: 0 } : {}),
      });
      client.on('error', () => {});
      await client.connect();
      clients.push(client);
      const storage = createRedisStorage({ client: fromIoredis(client) }, { prefix });
      storages.push(storage);
      return storage;
    },
    kill: () => killClientsNamed(admin, clientName),
    async dispose() {
      await Promise.allSettled(storages.map((storage) => storage.close()));
      for (const client of clients) client.disconnect();
      await admin.close().catch(() => {});
      await deleteRedisKeys(REDIS_URL, prefix);
    },
  };
}

/**
 * A Redis Cluster of the target's own (three masters with a replica each on `basePort`..+5) under
 * node-redis or ioredis cluster clients named like the single-node targets' clients; `kill()` kills
 * those connections on every node.
 */
export async function clusterChaosTarget(kind: ClusterClientKind, basePort: number): Promise<ChaosTarget> {
  const own = await startOwnCluster(basePort);
  const tag = runTag();
  const clientName = `hyphae-chaos-cluster-${tag}`;
  const prefix = `hyphae-test:chaos-cluster:${tag}:`;
  const admins = await Promise.all(
    own.nodes.map(async (node) => {
      const admin = createClient({ url: node.url, name: `hyphae-chaos-admin-${tag}` });
      admin.on('error', () => {});
      await admin.connect();
      return admin;
    }),
  );
  const closers: (() => unknown)[] = [];
  const storages: RedisStorage[] = [];
  return {
    name: kind === 'node-redis' ? 'redis' : 'ioredis',
    marker: `cluster clients named ${clientName}`,
    async open() {
      const rootNodes = own.nodes.map((node) => ({ url: node.url }));
      let storage: RedisStorage;
      if (kind === 'node-redis') {
        const reconnectStrategy = (retries: number) => Math.min(5 * 2 ** retries, 100);
        const client = createCluster({ rootNodes, defaults: { name: clientName, socket: { reconnectStrategy } } });
        client.on('error', () => {});
        await client.connect();
        closers.push(() => client.destroy());
        storage = createRedisStorage({ client }, { prefix });
      } else {
        const redisOptions = { connectionName: clientName, maxRetriesPerRequest: 1 };
        const client = new Cluster([...own.startup], { redisOptions });
        client.on('error', () => {});
        await new Promise<void>((resolve) => client.once('ready', () => resolve()));
        closers.push(() => client.disconnect());
        storage = createRedisStorage({ client: fromIoredis(client) }, { prefix });
      }
      storages.push(storage);
      return storage;
    },
    async kill() {
      const killed = await Promise.all(admins.map((admin) => killClientsNamed(admin, clientName)));
      return killed.reduce((sum, count) => sum + count, 0);
    },
    async dispose() {
      await Promise.allSettled(storages.map((storage) => storage.close()));
      for (const close of closers) await close();
      await Promise.allSettled(admins.map((admin) => admin.close()));
      await own.stop();
    },
  };
}
