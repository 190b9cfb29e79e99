/**
 * Where `hyphae verify` writes: a store of the same kind and settings as the config's, but its own —
 * a fresh SQLite file in a temp folder, or the same Redis or PostgreSQL server under a prefix of
 * its own — removed afterwards. The user's transitions are never read or written.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterUrls, resolveValue } from '../../config/open-stores.js';
import type { ConfigEnv } from '../../config/parse-config.js';
import type { StoreSettings } from '../../config/types.js';
import { clusterOptions } from '../../storage/redis/owned-cluster.js';

/** The verification store and how to remove it. */
export interface IsolatedStore {
  /** Settings of the store to open; secrets already resolved, so a child process needs no env. */
  readonly settings: StoreSettings;
  /** What the user's store is, for the report (never a secret). */
  readonly describe: string;
  /** Whether another process can share it (false for memory). */
  readonly multiProcess: boolean;
  cleanup(): Promise<void>;
}

interface RedisNode {
  connect(): Promise<unknown>;
  sendCommand(args: string[]): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
}
interface RedisModule {
  createClient(options: { url: string }): RedisNode;
  createCluster(options: ReturnType<typeof clusterOptions>): {
    connect(): Promise<unknown>;
    readonly masters: readonly unknown[];
    nodeClient(node: unknown): Promise<RedisNode>;
    close(): Promise<unknown>;
  };
}

interface PgModule {
  default: { Pool: new (options: { connectionString: string; max: number }) => PgPool };
}
interface PgPool {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}

/** Remove the keys under `prefix` that one node holds; on a cluster one by one, since they lie in many slots. */
async function dropOnNode(client: RedisNode, prefix: string, cluster: boolean): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = (await client.sendCommand(['SCAN', cursor, 'MATCH', `${prefix}*`, 'COUNT', '500'])) as [
      string,
      string[],
    ];
    cursor = next;
    if (keys.length === 0) continue;
    if (cluster) await Promise.all(keys.map((key) => client.sendCommand(['UNLINK', key])));
    else await client.sendCommand(['UNLINK', ...keys]);
  } while (cursor !== '0');
}

async function dropRedisPrefix(url: string, prefix: string, cluster: boolean): Promise<void> {
  const redis = (await import('redis')) as unknown as RedisModule;
  if (cluster) {
    const client = redis.createCluster(clusterOptions(clusterUrls(url)));
    await client.connect();
    try {
      for (const node of client.masters) await dropOnNode(await client.nodeClient(node), prefix, true);
    } finally {
      await client.close();
    }
    return;
  }
  const client = redis.createClient({ url });
  await client.connect();
  try {
    await dropOnNode(client, prefix, false);
  } finally {
    await (client.close?.() ?? client.quit?.());
  }
}

async function dropPostgresPrefix(dsn: string, schema: string, prefix: string): Promise<void> {
  const pg = (await import('pg')) as unknown as PgModule;
  const pool = new pg.default.Pool({ connectionString: dsn, max: 1 });
  try {
    const { rows } = await pool.query(
      'select table_name from information_schema.tables where table_schema = $1 and starts_with(table_name, $2)',
      [schema, prefix],
    );
    for (const row of rows) await pool.query(`drop table if exists "${schema}"."${String(row.table_name)}"`);
  } finally {
    await pool.end();
  }
}

/** A store beside `store` for one verification run. */
export async function isolatedStore(store: StoreSettings, env: ConfigEnv): Promise<IsolatedStore> {
  const id = randomBytes(4).toString('hex');
  switch (store.kind) {
    case 'memory':
      return { settings: store, describe: 'memory', multiProcess: false, cleanup: async () => {} };
    case 'sqlite': {
      const dir = await mkdtemp(join(tmpdir(), 'hyphae-verify-'));
      return {
        settings: { ...store, path: join(dir, 'verify.db') },
        describe: `sqlite (a fresh file with the settings of \`${store.path}\`)`,
        multiProcess: true,
        cleanup: () => rm(dir, { recursive: true, force: true }),
      };
    }
    case 'redis': {
      const url = resolveValue(store.url, env);
      const prefix = `${store.prefix ?? 'hyphae:'}verify:${id}:`;
      return {
        settings: {
          kind: 'redis',
          url: { value: url },
          prefix,
          ...(store.cluster === true ? { cluster: true } : {}),
          ...(store.waitForReplicas === undefined ? {} : { waitForReplicas: store.waitForReplicas }),
        },
        describe: `redis${store.cluster === true ? ' cluster' : ''} (keys under \`${prefix}\`, removed afterwards)`,
        multiProcess: true,
        cleanup: () => dropRedisPrefix(url, prefix, store.cluster === true),
      };
    }
    case 'postgres': {
      const dsn = resolveValue(store.dsn, env);
      const tablePrefix = `${store.tablePrefix ?? 'hyphae_'}verify_${id}_`;
      const schema = store.schema ?? 'public';
      return {
        settings: { kind: 'postgres', dsn: { value: dsn }, schema, tablePrefix },
        describe: `postgres (tables \`${schema}.${tablePrefix}*\`, dropped afterwards)`,
        multiProcess: true,
        cleanup: () => dropPostgresPrefix(dsn, schema, tablePrefix),
      };
    }
  }
}
