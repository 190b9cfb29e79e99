/**
 * Stores on the real servers for the ledger's integration tests (race rounds, chaos, fencing).
 *
 * A store is one isolated place on a backend — a temp SQLite file, a Redis key prefix, a
 * PostgreSQL table prefix — unique to one run of one test file. Every `open()` hands out one more
 * storage instance with its own connection (file handle, client, pool) on that place, and
 * `childEnv()` tells a child process how to open the same place. A store whose server does not
 * answer is marked `skip` (for `describe.skipIf`); with `REQUIRE_INTEGRATION=1` it throws instead,
 * so the test file fails rather than passing silently.
 */
import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';
import { type LedgerStorage, LedgerStorageUnavailableError } from '../../src/index.js';
import { createPostgresStorage } from '../../src/storage/postgres.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import { nodeSqliteModule } from '../../src/storage/sqlite/load-node-sqlite.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { integrationSkip, POSTGRES_URL, probePostgres, probeRedis, REDIS_URL } from './integration.js';
import { openIoredisStorage } from './ioredis-storage.js';
import { deleteClusterKeys, type OwnCluster, openClusterStorage, ownClusterOrSkip } from './redis-cluster.js';

/**
 * A durable backend: `sqlite` through better-sqlite3, `node-sqlite` through Node's built-in
 * `node:sqlite`, `ioredis` Redis through an ioredis client and `fromIoredis`; `redis-cluster` and
 * `ioredis-cluster` a Redis Cluster of the test file's own through either library's cluster client.
 */
export type StoreName =
  | 'sqlite'
  | 'node-sqlite'
  | 'redis'
  | 'ioredis'
  | 'redis-cluster'
  | 'ioredis-cluster'
  | 'postgres';
const STORE_NAMES: readonly StoreName[] = [
  'sqlite',
  'node-sqlite',
  'redis',
  'ioredis',
  'redis-cluster',
  'ioredis-cluster',
  'postgres',
];

/** Where a store lives: enough for any process to open it. */
export interface StoreAddress {
  readonly name: StoreName;
  /** SQLite file, Redis URL or PostgreSQL connection string. */
  readonly location: string;
  /** Redis key prefix or PostgreSQL table prefix; empty for SQLite. */
  readonly prefix: string;
}

/** One isolated store of a test file. */
export interface TestStore extends StoreAddress {
  /** True when the server did not answer (and `REQUIRE_INTEGRATION` is not set): skip its tests. */
  readonly skip: boolean;
  /** One more storage instance with its own connection; the storage owns (and closes) it. */
  open(): LedgerStorage;
  /** Environment a child process passes to {@link storeAddressFromEnv}. */
  childEnv(): Record<string, string>;
  /** Remove what the store holds (file, keys, tables). */
  dispose(): Promise<void>;
}

const ENV_STORE = 'HYPHAE_TEST_STORE_ADDRESS';

/** A tag unique to this process and call, safe in Redis keys and PostgreSQL identifiers. */
export const runTag = (): string => `${process.pid}_${randomUUID().slice(0, 8)}`;

/** Open a storage instance (with its own connection) on the store at `address`. */
export function openStoreAt(address: StoreAddress): LedgerStorage {
  switch (address.name) {
    case 'sqlite':
      return createSqliteStorage({ path: address.location, driver: 'better-sqlite3' });
    case 'node-sqlite':
      return createSqliteStorage({ path: address.location, driver: 'node:sqlite' });
    case 'redis':
      return createRedisStorage({ url: address.location }, { prefix: address.prefix });
    case 'ioredis':
      return openIoredisStorage(address.location, address.prefix);
    case 'redis-cluster':
    case 'ioredis-cluster': {
      const kind = address.name === 'redis-cluster' ? 'node-redis' : 'ioredis';
      return lazyStorage(openClusterStorage(clusterAt(address.location), kind, { prefix: address.prefix }));
    }
    case 'postgres':
      return createPostgresStorage({ connectionString: address.location }, { tablePrefix: address.prefix });
  }
}

/** The cluster whose startup nodes a cluster store's location lists (`127.0.0.1:7121,...`). */
function clusterAt(location: string): OwnCluster {
  const startup = location.split(',').map((node) => {
    const [host = '127.0.0.1', port = '0'] = node.split(':');
    return { host, port: Number(port) };
  });
  const unused = (): never => {
    throw new Error('Only the startup nodes of a cluster store are known here');
  };
  const nodes = startup.map(({ host, port }) => ({ port, url: `redis://${host}:${port}`, pid: () => 0 }));
  return {
    nodes,
    startup,
    cli: unused,
    shardOf: unused,
    settle: unused,
    signal: unused,
    kill: unused,
    restart: unused,
    stop: unused,
  };
}

/**
 * A storage usable at once over one that is still connecting (a cluster client connects
 * asynchronously); a connection that fails makes every operation unavailable.
 */
function lazyStorage(opening: Promise<LedgerStorage>): LedgerStorage {
  const ready = opening.catch((cause: unknown) => {
    throw new LedgerStorageUnavailableError('connect', { cause });
  });
  ready.catch(() => {});
  return {
    capabilities: { name: 'redis', crossProcess: true, durable: true },
    get: (key) => ready.then((storage) => storage.get(key)),
    create: (record) => ready.then((storage) => storage.create(record)),
    update: (key, version, next) => ready.then((storage) => storage.update(key, version, next)),
    findByTicket: (ticketKey) => ready.then((storage) => storage.findByTicket(ticketKey)),
    list: (query) => ready.then((storage) => storage.list(query)),
    hazards: () => ready.then((storage) => storage.hazards?.() ?? []),
    identity: () =>
      ready.then((storage) => {
        if (storage.identity === undefined) throw new TypeError('The Redis storage has no `identity`');
        return storage.identity();
      }),
    watch(key, onChange) {
      let stop: (() => void) | null = null;
      let stopped = false;
      ready.then(
        (storage) => {
          if (!stopped) stop = storage.watch?.(key, onChange) ?? null;
        },
        () => {},
      );
      return () => {
        stopped = true;
        stop?.();
      };
    },
    close: () => ready.then((storage) => storage.close()).catch(() => {}),
  };
}

/** The file's cluster on `port`, started once and stopped after its last store is disposed. */
const clusters = new Map<number, { cluster: Promise<OwnCluster | null>; users: number }>();
function sharedCluster(port: number): { cluster: Promise<OwnCluster | null>; release(): Promise<void> } {
  let entry = clusters.get(port);
  if (entry === undefined) {
    entry = { cluster: ownClusterOrSkip(port), users: 0 };
    clusters.set(port, entry);
  }
  entry.users += 1;
  const held = entry;
  return {
    cluster: held.cluster,
    async release() {
      held.users -= 1;
      if (held.users > 0) return;
      clusters.delete(port);
      await (await held.cluster)?.stop();
    },
  };
}

/** Base ports of the clusters of the files that run cluster stores (each file its own). */
const CLUSTER_PORTS: Readonly<Record<string, number>> = { race: 7121, fence: 7131 };

/** The address a parent put in the environment with {@link TestStore.childEnv}. */
export function storeAddressFromEnv(env: NodeJS.ProcessEnv = process.env): StoreAddress {
  const text = env[ENV_STORE];
  if (text === undefined) throw new Error(`Set ${ENV_STORE} (a JSON StoreAddress)`);
  const address = JSON.parse(text) as StoreAddress;
  if (!STORE_NAMES.includes(address.name)) throw new Error(`Unknown store \`${address.name}\``);
  return address;
}

/** Delete every Redis key under `prefix`. */
export async function deleteRedisKeys(url: string, prefix: string): Promise<void> {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  try {
    for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) {
      if (keys.length > 0) await client.unlink(keys);
    }
  } finally {
    await client.close();
  }
}

/** Drop the tables of a PostgreSQL table prefix (schema `public`). */
export async function dropPostgresTables(connectionString: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString });
  client.on('error', () => {});
  await client.connect();
  try {
    await client.query(`DROP TABLE IF EXISTS "public"."${prefix}transitions", "public"."${prefix}meta"`);
  } finally {
    await client.end();
  }
}

function storeOn(address: StoreAddress, skip: boolean, dispose: () => Promise<void>): TestStore {
  return {
    ...address,
    skip,
    open: () => openStoreAt(address),
    childEnv: () => ({ [ENV_STORE]: JSON.stringify(address) }),
    dispose: skip ? async () => {} : dispose,
  };
}

/** A store on one backend: `sqlite` and `node-sqlite` always run; `redis` and `postgres` are probed first. */
export async function testStore(name: StoreName, label: string): Promise<TestStore> {
  const tag = runTag();
  switch (name) {
    case 'sqlite':
    case 'node-sqlite': {
      // Created by the driver on first open, so a file whose tests are filtered out leaves nothing.
      const dir = join(tmpdir(), `hyphae-${label}-${tag}`);
      const address: StoreAddress = { name, location: join(dir, 'ledger.db'), prefix: '' };
      return storeOn(address, false, async () =>
        rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }),
      );
    }
    case 'redis':
    case 'ioredis': {
      const address: StoreAddress = { name, location: REDIS_URL, prefix: `hyphae-test:${label}:${tag}:` };
      const skip = integrationSkip(await probeRedis(REDIS_URL));
      return storeOn(address, skip, () => deleteRedisKeys(REDIS_URL, address.prefix));
    }
    case 'redis-cluster':
    case 'ioredis-cluster': {
      const port = CLUSTER_PORTS[label];
      if (port === undefined) throw new Error(`No cluster port for the stores labelled \`${label}\``);
      const shared = sharedCluster(port);
      const cluster = await shared.cluster;
      const prefix = `hyphae-test:${label}:${tag}:`;
      const location = cluster === null ? '' : cluster.startup.map((node) => `${node.host}:${node.port}`).join(',');
      return storeOn({ name, location, prefix }, cluster === null, async () => {
        if (cluster !== null) await deleteClusterKeys(cluster, prefix);
        await shared.release();
      });
    }
    case 'postgres': {
      const address: StoreAddress = { name, location: POSTGRES_URL, prefix: `${label}_${tag}_` };
      const skip = integrationSkip(await probePostgres(POSTGRES_URL));
      return storeOn(address, skip, () => dropPostgresTables(POSTGRES_URL, address.prefix));
    }
  }
}

/**
 * One store per backend, probed in order; `node-sqlite` is left out on a runtime without
 * `node:sqlite` (Node.js 20), where there is nothing to test.
 */
export async function testStores(names: readonly StoreName[], label: string): Promise<TestStore[]> {
  const stores: TestStore[] = [];
  for (const name of names) {
    if (name === 'node-sqlite' && nodeSqliteModule() === undefined) continue;
    stores.push(await testStore(name, label));
  }
  return stores;
}
