/**
 * The fault table: each fault injected into each store under a ledger that has completed N
 * payments, then every call redispatched; how many ran again (duplicate effects), returned the
 * stored result, or were refused. Servers are this script's own (a `redis-server` per case, table
 * prefixes of its own on PostgreSQL); the shared servers are never reconfigured.
 *
 *   node --import tsx bench/faults/run.ts [--quick]
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createClient } from 'redis';
import { createPostgresStorage } from '../../src/storage/postgres.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { POSTGRES_URL } from '../../test/helpers/integration.js';
import { type OwnRedis, startOwnRedis } from '../../test/helpers/own-redis.js';
import { commandLine, type Figure, figure, headerLines, load, writeArea } from '../lib/area-report.js';
import { markdownTable } from '../lib/markdown-table.js';
import { type FaultCounts, type FaultPlan, runFault } from './scenario.js';

const quick = process.argv.includes('--quick');
const CALLS = quick ? 40 : 200;
const EVICTION_CALLS = quick ? 1500 : 3000;

interface Row {
  readonly store: string;
  readonly fault: string;
  readonly counts: FaultCounts;
}

async function withRedis<T>(args: readonly string[], body: (server: OwnRedis) => Promise<T>): Promise<T> {
  const server = await startOwnRedis(args);
  try {
    return await body(server);
  } finally {
    await server.stop();
  }
}

async function adminRedis(url: string) {
  const client = createClient({ url });
  client.on('error', () => {});
  await client.connect();
  return client;
}

async function redisRows(): Promise<Row[]> {
  const rows: Row[] = [];
  const add = (fault: string, counts: FaultCounts) => rows.push({ store: 'Redis', fault, counts });
  const evicting = ['--maxmemory', '3mb', '--maxmemory-policy', 'allkeys-lru'];
  add(
    'eviction (`allkeys-lru`, 3 MB), default',
    await withRedis(evicting, async ({ url }) =>
      runFault({ before: () => createRedisStorage({ url }), inject: async () => {} }, CALLS),
    ),
  );
  add(
    'eviction (`allkeys-lru`, 3 MB), `allowEviction: true`',
    await withRedis(evicting, async ({ url }) =>
      runFault(
        { before: () => createRedisStorage({ url }, { allowEviction: true }), inject: async () => {} },
        EVICTION_CALLS,
      ),
    ),
  );
  for (const [label, after] of [
    ['restart empty, same storage', undefined],
    ['restart empty, a new process with `create: false`', { create: false }],
    ['restart empty, a new process with `create: true` (default)', {}],
  ] as const) {
    add(
      label,
      await withRedis([], async (server) => {
        const plan: FaultPlan = {
          before: () => createRedisStorage({ url: server.url }),
          inject: () => server.restartEmpty(),
          ...(after === undefined ? {} : { after: () => createRedisStorage({ url: server.url }, after) }),
        };
        return runFault(plan, CALLS);
      }),
    );
  }
  add(
    'server paused (SIGSTOP, 500 ms) before the redispatches',
    await withRedis([], async (server) =>
      runFault({ before: () => createRedisStorage({ url: server.url }), inject: () => server.pause(500) }, CALLS),
    ),
  );
  add(
    'vanished records (`DEL` of every record, tickets kept)',
    await withRedis([], async ({ url }) => {
      const admin = await adminRedis(url);
      try {
        return await runFault(
          {
            before: () => createRedisStorage({ url }),
            inject: async () => {
              const keys = await admin.keys('hyphae:rec:*');
              if (keys.length > 0) await admin.del(keys);
            },
          },
          CALLS,
        );
      } finally {
        await admin.close();
      }
    }),
  );
  return rows;
}

async function postgresRows(): Promise<Row[]> {
  const admin = new pg.Pool({ connectionString: POSTGRES_URL });
  admin.on('error', () => {});
  const prefixes: string[] = [];
  const fresh = () => {
    const tablePrefix = `hyphae_faults_${randomBytes(4).toString('hex')}_`;
    prefixes.push(tablePrefix);
    const table = (name: string) => `"public"."${tablePrefix}${name}"`;
    const open = (create = true) => createPostgresStorage({ connectionString: POSTGRES_URL }, { tablePrefix, create });
    return { table, open };
  };
  const rows: Row[] = [];
  const add = async (fault: string, make: (store: ReturnType<typeof fresh>) => FaultPlan) => {
    rows.push({ store: 'PostgreSQL', fault, counts: await runFault(make(fresh()), CALLS) });
  };
  try {
    await add('dropped transitions table (meta kept)', ({ table, open }) => ({
      before: () => open(),
      inject: async () => void (await admin.query(`DROP TABLE ${table('transitions')}`)),
      after: () => open(),
    }));
    await add('both tables dropped, a new process with `create: false`', ({ table, open }) => ({
      before: () => open(),
      inject: async () => void (await admin.query(`DROP TABLE ${table('transitions')}, ${table('meta')}`)),
      after: () => open(false),
    }));
    await add('both tables dropped, a new process with `create: true` (default)', ({ table, open }) => ({
      before: () => open(),
      inject: async () => void (await admin.query(`DROP TABLE ${table('transitions')}, ${table('meta')}`)),
      after: () => open(),
    }));
    await add('`TRUNCATE` of the transitions table by a DBA', ({ table, open }) => ({
      before: () => open(),
      inject: async () => void (await admin.query(`TRUNCATE ${table('transitions')}`)),
    }));
    await add('vanished records (`DELETE` of every row)', ({ table, open }) => ({
      before: () => open(),
      inject: async () => void (await admin.query(`DELETE FROM ${table('transitions')}`)),
    }));
    await add('edited rows (version column changed)', ({ table, open }) => ({
      before: () => open(),
      inject: async () => void (await admin.query(`UPDATE ${table('transitions')} SET version = version + 1`)),
    }));
  } finally {
    for (const prefix of prefixes) {
      await admin.query(`DROP TABLE IF EXISTS "public"."${prefix}transitions", "public"."${prefix}meta"`);
    }
    await admin.end();
  }
  return rows;
}

async function sqliteRows(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-faults-'));
  let n = 0;
  const rows: Row[] = [];
  const add = async (fault: string, make: (path: string) => FaultPlan) => {
    n += 1;
    rows.push({ store: 'SQLite', fault, counts: await runFault(make(join(dir, `ledger-${n}.db`)), CALLS) });
  };
  const exec = (path: string, sql: string) => {
    const db = new Database(path);
    try {
      db.exec(sql);
    } finally {
      db.close();
    }
  };
  try {
    await add('dropped transitions table (meta kept), a new process', (path) => ({
      before: () => createSqliteStorage({ path }),
      inject: async () => exec(path, 'DROP TABLE hyphae_transitions'),
      after: () => createSqliteStorage({ path }),
    }));
    await add('vanished records (`DELETE` of every row)', (path) => ({
      before: () => createSqliteStorage({ path }),
      inject: async () => exec(path, 'DELETE FROM hyphae_transitions'),
    }));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return rows;
}

function outcome(counts: FaultCounts): string {
  const refused = Object.entries(counts.refused).map(([code, count]) => `${count} \`${code}\``);
  const parts = [...(counts.duplicates > 0 ? [`${counts.duplicates} ran again`] : [])];
  if (counts.returned > 0) parts.push(`${counts.returned} returned the stored result`);
  return [...parts, ...refused].join(', ');
}

const loadAtStart = load();
const started = new Date();
const rows = [...(await redisRows()), ...(await postgresRows()), ...(await sqliteRows())];
const figures: Figure[] = rows.map((row) =>
  figure(`${row.store}: ${row.fault}: duplicate effects`, 'calls', row.counts.duplicates, row.counts.completed),
);
const table = markdownTable(
  [
    { title: 'store' },
    { title: 'fault' },
    { title: 'calls', align: 'right' },
    { title: 'completed before', align: 'right' },
    { title: 'duplicate effects', align: 'right' },
    { title: 'the redispatches' },
  ],
  rows.map((row) => [
    row.store,
    row.fault,
    String(row.counts.calls),
    String(row.counts.completed),
    String(row.counts.duplicates),
    outcome(row.counts),
  ]),
);
const markdown = [
  '# Store faults',
  '',
  ...headerLines(commandLine(), loadAtStart, started),
  '',
  'Each case completes N payments (`non_idempotent_mutate`, the body inside `sideEffect`) with one ledger,',
  'injects the fault, then redispatches every call with its tool call id and counts: a body that ran a',
  'second time is a **duplicate effect**; a redispatch that returned the stored result or was refused is',
  'not. "completed before" is the baseline of the ratio in `faults.json`. Redis cases run on a',
  '`redis-server` of their own (no persistence); PostgreSQL on table prefixes of their own.',
  '',
  ...table,
  '',
].join('\n');
await writeArea('faults', figures, markdown);
process.stdout.write(`${markdown}\n`);
