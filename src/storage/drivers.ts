/**
 * The store drivers, by kind: what the config, `hyphae doctor`, `hyphae verify` and `hyphae demo`
 * do with a store, asked of its driver rather than decided by its name. Each driver module (and its
 * client library) loads only when a store of its kind is opened.
 */

import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { LedgerStorage } from './ledger-storage.js';
import { createMemoryStorage } from './memory.js';
import { createMemorySnapshotStorage } from './memory-snapshots.js';
import type { ReceiptSink } from './receipt-sink.js';
import type { SnapshotStorage } from './snapshot-storage.js';

/** A store of each kind, its secrets (a URL, a DSN) given as text. */
export type StoreTarget =
  | { readonly kind: 'memory' }
  | {
      readonly kind: 'sqlite';
      /** The database file (`:memory:` for one in memory). */
      readonly path: string;
      readonly tablePrefix?: string;
      readonly synchronous?: 'FULL' | 'NORMAL';
      /** Initialise a missing or schema-less file (default true). */
      readonly create?: boolean;
    }
  | {
      readonly kind: 'redis';
      /** The server's URL; with `cluster`, the URLs of one or more nodes, separated by commas. */
      readonly url: string;
      readonly cluster?: boolean;
      readonly waitForReplicas?: { readonly replicas: number; readonly timeoutMs: number };
      readonly prefix?: string;
      readonly allowEviction?: boolean;
      readonly create?: boolean;
    }
  | {
      readonly kind: 'postgres';
      readonly dsn: string;
      readonly schema?: string;
      readonly tablePrefix?: string;
      readonly create?: boolean;
    };

/** The kinds of store. */
export type StoreKind = StoreTarget['kind'];

/** The target of kind `K`. */
export type TargetOf<K extends StoreKind> = Extract<StoreTarget, { readonly kind: K }>;

/** The settings that may hold a secret. */
export type SecretField = 'url' | 'dsn';

/** A target without its secrets: all a description, a file or a fix needs. */
export type Described<T extends StoreTarget> = T extends StoreTarget ? Omit<T, SecretField> : never;

/** A store of the same kind and settings as a user's, but its own, and how to remove it. */
export interface IsolatedTarget<T extends StoreTarget = StoreTarget> {
  readonly target: T;
  /** What the user's store is and where the isolated one lies (never a secret). */
  readonly describe: string;
  cleanup(): Promise<void>;
}

/** What a store kind does, for whoever opens, checks or describes a store of it. */
export interface StoreDriver<T extends StoreTarget = StoreTarget> {
  readonly kind: T['kind'];
  /** The kind as prose names it: `SQLite`, `Redis`, `PostgreSQL`, `memory`. */
  readonly title: string;
  /** The settings that hold a secret (a URL with a password, a DSN), read from the environment in a config. */
  readonly secretFields: readonly (keyof T & SecretField)[];
  /** Lives in the process: nothing to connect to, and lost with the process. */
  readonly inProcess: boolean;
  /** A server the store connects to (rather than a file it opens). */
  readonly server: boolean;
  /** Keeps signed receipts in a table beside the ledger's. */
  readonly keepsReceipts: boolean;
  /** Keeps run snapshots. */
  readonly keepsSnapshots: boolean;
  /** The store as a report names it: `sqlite ./ledger.db`, `redis cluster`, `postgres` (never a secret). */
  describe(target: Described<T>): string;
  /** The local file the store is, when it is one (`:memory:` is none). */
  file(target: Described<T>): string | undefined;
  /** Open its ledger storage; nothing connects before the first operation. */
  open(target: T): Promise<LedgerStorage>;
  /** Open its receipt sink (only where {@link keepsReceipts}). */
  openReceiptSink(target: T): Promise<ReceiptSink>;
  /** Open its snapshot store (only where {@link keepsSnapshots}). */
  openSnapshots(target: T): Promise<SnapshotStorage>;
  /**
   * The same settings on a store that leaves nothing behind (SQLite in memory), to check that the
   * driver loads before its file exists; undefined where there is none.
   */
  scratch(target: T): T | undefined;
  /** A store beside `target` for one run (`id` makes it unique), removed by its `cleanup`. */
  isolate(target: T, id: string): Promise<IsolatedTarget<T>>;
  /** What to check when the store does not open or answer. */
  fix(target: Described<T>): string;
  /** How to mend a hazard the ledger refuses on this store. */
  hazardFix(target: Described<T>): string;
}

/** The node URLs of a Redis Cluster target: one URL, or several separated by commas. */
export function clusterUrls(text: string): [string, ...string[]] {
  const urls = text
    .split(',')
    .map((url) => url.trim())
    .filter((url) => url !== '');
  return urls.length === 0 ? [text] : (urls as [string, ...string[]]);
}

function unsupported(kind: StoreKind, what: string): never {
  throw new Error(`A ${kind} store keeps no ${what}`);
}

const defined = <T extends object>(value: T): Partial<T> =>
  Object.fromEntries(Object.entries(value).filter(([, field]) => field !== undefined)) as Partial<T>;

const memory: StoreDriver<TargetOf<'memory'>> = {
  kind: 'memory',
  title: 'memory',
  secretFields: [],
  inProcess: true,
  server: false,
  keepsReceipts: false,
  keepsSnapshots: true,
  describe: () => 'memory',
  file: () => undefined,
  open: async () => createMemoryStorage(),
  openReceiptSink: () => unsupported('memory', 'receipts'),
  openSnapshots: async () => createMemorySnapshotStorage(),
  scratch: () => undefined,
  isolate: async (target) => ({ target, describe: 'memory', cleanup: async () => {} }),
  fix: () => 'check the store settings',
  hazardFix: () => 'check the store settings',
};

const sqlite: StoreDriver<TargetOf<'sqlite'>> = {
  kind: 'sqlite',
  title: 'SQLite',
  secretFields: [],
  inProcess: false,
  server: false,
  keepsReceipts: true,
  keepsSnapshots: true,
  describe: (target) => `sqlite ${target.path}`,
  file: (target) => (target.path === ':memory:' ? undefined : target.path),
  async open(target) {
    const { createSqliteStorage } = await import('./sqlite.js');
    return createSqliteStorage(
      { path: target.path },
      defined({ tablePrefix: target.tablePrefix, synchronous: target.synchronous, create: target.create }),
    );
  },
  async openReceiptSink(target) {
    const { createSqliteReceiptSink } = await import('./sqlite.js');
    return createSqliteReceiptSink({ path: target.path }, defined({ tablePrefix: target.tablePrefix }));
  },
  async openSnapshots(target) {
    const { createSqliteSnapshotStorage } = await import('./sqlite.js');
    if (target.path !== ':memory:') {
      // The ledger driver creates its file's directory; the snapshot driver does not.
      await mkdir(dirname(target.path), { recursive: true });
    }
    return createSqliteSnapshotStorage({ path: target.path }, defined({ tablePrefix: target.tablePrefix }));
  },
  scratch: (target) => ({ ...target, path: ':memory:' }),
  async isolate(target) {
    const dir = await mkdtemp(join(tmpdir(), 'hyphae-verify-'));
    return {
      target: { ...target, path: join(dir, 'verify.db') },
      describe: `sqlite (a fresh file with the settings of \`${target.path}\`)`,
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  },
  fix: (target) =>
    `check that \`${target.path}\` is a hyphae SQLite database and readable, and that better-sqlite3 is installed`,
  hazardFix: () => 'check the store settings',
};

const redis: StoreDriver<TargetOf<'redis'>> = {
  kind: 'redis',
  title: 'Redis',
  secretFields: ['url'],
  inProcess: false,
  server: true,
  keepsReceipts: false,
  keepsSnapshots: false,
  describe: (target) => (target.cluster === true ? 'redis cluster' : 'redis'),
  file: () => undefined,
  async open(target) {
    const { createRedisStorage } = await import('./redis.js');
    const connection = target.cluster === true ? { cluster: clusterUrls(target.url) } : { url: target.url };
    return createRedisStorage(
      connection,
      defined({
        waitForReplicas: target.waitForReplicas,
        prefix: target.prefix,
        allowEviction: target.allowEviction,
        create: target.create,
      }),
    );
  },
  openReceiptSink: () => unsupported('redis', 'receipts'),
  openSnapshots: () => unsupported('redis', 'snapshots'),
  scratch: () => undefined,
  async isolate(target, id) {
    const prefix = `${target.prefix ?? 'hyphae:'}verify:${id}:`;
    const cluster = target.cluster === true;
    const { dropRedisPrefix } = await import('./redis/drop-prefix.js');
    return {
      target: { ...target, prefix },
      describe: `redis${cluster ? ' cluster' : ''} (keys under \`${prefix}\`, removed afterwards)`,
      cleanup: () => dropRedisPrefix(clusterUrls(target.url), prefix, cluster),
    };
  },
  fix: (target) =>
    target.cluster === true
      ? 'check the Redis Cluster node URLs, that the cluster is up (`redis-cli --cluster check`), and that the `redis` package is installed'
      : 'check the Redis URL, that the server is running, and that the `redis` package is installed',
  hazardFix: () =>
    'run the server with `maxmemory-policy noeviction` (redis.conf, or `CONFIG SET`), or accept the risk with `allow_eviction: true`',
};

const postgres: StoreDriver<TargetOf<'postgres'>> = {
  kind: 'postgres',
  title: 'PostgreSQL',
  secretFields: ['dsn'],
  inProcess: false,
  server: true,
  keepsReceipts: true,
  keepsSnapshots: false,
  describe: () => 'postgres',
  file: () => undefined,
  async open(target) {
    const { createPostgresStorage } = await import('./postgres.js');
    return createPostgresStorage(
      { connectionString: target.dsn },
      defined({ schema: target.schema, tablePrefix: target.tablePrefix, create: target.create }),
    );
  },
  async openReceiptSink(target) {
    const { createPostgresReceiptSink } = await import('./postgres.js');
    return createPostgresReceiptSink(
      { connectionString: target.dsn },
      defined({ schema: target.schema, tablePrefix: target.tablePrefix }),
    );
  },
  openSnapshots: () => unsupported('postgres', 'snapshots'),
  scratch: () => undefined,
  async isolate(target, id) {
    const tablePrefix = `${target.tablePrefix ?? 'hyphae_'}verify_${id}_`;
    const schema = target.schema ?? 'public';
    const { dropPostgresTables } = await import('./postgres/drop-prefix.js');
    return {
      target: { ...target, schema, tablePrefix },
      describe: `postgres (tables \`${schema}.${tablePrefix}*\`, dropped afterwards)`,
      cleanup: () => dropPostgresTables(target.dsn, schema, tablePrefix),
    };
  },
  fix: () =>
    'check the connection string, that the server is running and the role may create tables, and that `pg` is installed',
  hazardFix: () => 'check the store settings',
};

const DRIVERS: { readonly [K in StoreKind]: StoreDriver<TargetOf<K>> } = { memory, sqlite, redis, postgres };

/** Every kind of store, in the order the docs list them. */
export const STORE_KINDS: readonly StoreKind[] = Object.keys(DRIVERS) as StoreKind[];

/** The kinds that keep receipts beside the ledger, as a sentence names them (`sqlite` or `postgres`). */
export function receiptStoresText(): string {
  const kinds = STORE_KINDS.filter((kind) => DRIVERS[kind].keepsReceipts).map((kind) => `\`${kind}\``);
  return kinds.length <= 1 ? kinds.join('') : `${kinds.slice(0, -1).join(', ')} or ${kinds.at(-1)}`;
}

/** The driver of `kind`. */
export function storeDriver<K extends StoreKind>(kind: K): StoreDriver<TargetOf<K>> {
  return DRIVERS[kind];
}

/** The driver of `target`, typed for it. */
export function driverOf<T extends StoreTarget>(target: Pick<T, 'kind'>): StoreDriver<T> {
  return DRIVERS[target.kind] as unknown as StoreDriver<T>;
}

/** What a report or a check says of a store, from settings whose secrets may not be resolved. */
export interface StoreFacts {
  /** The kind as prose names it: `SQLite`, `Redis`, `PostgreSQL`, `memory`. */
  readonly title: string;
  /** How a report names it (never a secret): `sqlite ./ledger.db`, `redis cluster`, `postgres`. */
  readonly describe: string;
  /** The local file it is, when it is one. */
  readonly file: string | undefined;
  /** What to check when it does not open or answer. */
  readonly fix: string;
  /** How to mend a hazard the ledger refuses on it. */
  readonly hazardFix: string;
  readonly inProcess: boolean;
  readonly server: boolean;
}

/** The facts of `store` that need none of its secrets. */
export function storeFacts(store: Described<StoreTarget>): StoreFacts {
  const driver = DRIVERS[store.kind] as StoreDriver;
  const described = store;
  return {
    title: driver.title,
    describe: driver.describe(described),
    file: driver.file(described),
    fix: driver.fix(described),
    hazardFix: driver.hazardFix(described),
    inProcess: driver.inProcess,
    server: driver.server,
  };
}

/** The secrets of `target` (its URL, its DSN) with any password in them replaced by `***`. */
export function redactedUrl(target: StoreTarget): string {
  return driverOf(target)
    .secretFields.map((field) => {
      const text = String((target as unknown as Record<string, unknown>)[field]);
      return text.replace(/(\/\/[^/:@]*:)[^@/]*@/g, '$1***@');
    })
    .join(', ');
}

/** How a report names a store (never a secret): `sqlite ./ledger.db`, `redis cluster`, `postgres`. */
export function describeTarget(store: Described<StoreTarget>): string {
  return storeFacts(store).describe;
}
