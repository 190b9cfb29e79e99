/**
 * What `hyphae doctor --deep` costs: SQLite's `PRAGMA integrity_check` (and `quick_check`, for
 * comparison) on a ledger of 100,000 completed records, through each driver this runtime has; and
 * what opening the store costs, whose index check (key and ticket index against the table) runs
 * on every open.
 *
 *   node bench/run-bundled.mjs bench/ledger/integrity.ts [--records N]
 *
 * The records are written by the driver's own insert statement in one transaction (the check does
 * not care how they got there), with documents of the size a ledgered call writes. Prints the file
 * size and the time of each check; writes no results file.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRecord } from '../../src/storage/record-codec.js';
import { indexCheckSql } from '../../src/storage/sqlite/check-indexes.js';
import { nodeSqliteModule } from '../../src/storage/sqlite/load-node-sqlite.js';
import { openSqliteFile } from '../../src/storage/sqlite/open-file.js';
import { sqliteTables } from '../../src/storage/sqlite/schema.js';
import { insertParams } from '../../src/storage/sqlite/transition-rows.js';
import { createSqliteStorage, type SqliteDriverName } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { randomKey } from '../lib/random-key.js';

const at = process.argv.indexOf('--records');
const RECORDS = at === -1 ? 100_000 : Number(process.argv[at + 1]);

async function measure(driver: SqliteDriverName, dir: string): Promise<void> {
  const file = join(dir, `ledger-${driver.replace(':', '-')}.db`);
  const storage = createSqliteStorage({ path: file, driver });
  await storage.ensureSchema();
  await storage.close();
  const db = await openSqliteFile({
    file,
    driver,
    busyTimeoutMs: 5000,
    create: false,
    metaTable: 'hyphae_meta',
    location: file,
  });
  try {
    const insert = db.prepare(
      'INSERT INTO hyphae_transitions (key, ticket_key, tool, kind, outcome, updated_at, version, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    db.immediate(() => {
      for (let i = 0; i < RECORDS; i += 1) {
        const record = makeTestRecord({
          key: randomKey(),
          ticketKey: randomKey(),
          outcome: 'COMPLETED',
          version: 2,
          result: { ok: true, id: `op_${i}` },
          updatedAt: 1_767_225_600_000 + i,
        });
        insert.run(...insertParams(record, encodeRecord(record)));
      }
    });
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
    const size = (await stat(file)).size;
    const time = (pragma: string): { ms: number; result: unknown } => {
      const started = process.hrtime.bigint();
      const result = db.pragmaValue(pragma);
      return { ms: Number(process.hrtime.bigint() - started) / 1e6, result };
    };
    // The first pass reads the file from disk into the page cache; the second from memory.
    const quick = [time('quick_check'), time('quick_check')];
    const integrity = [time('integrity_check'), time('integrity_check')];
    const check = db.prepare(indexCheckSql(sqliteTables('hyphae_')));
    const indexes = [0, 1].map(() => {
      const started = process.hrtime.bigint();
      const result = (check.get() as { n: unknown }).n;
      return { ms: Number(process.hrtime.bigint() - started) / 1e6, result };
    });
    const fmt = (runs: { ms: number; result: unknown }[]): string =>
      `${runs.map((run) => `${run.ms.toFixed(0)} ms`).join(' / ')} (${String(runs[0]?.result)})`;
    console.log(
      `${driver}: ${RECORDS} records, ${(size / 1024 / 1024).toFixed(1)} MiB — quick_check ${fmt(quick)}, integrity_check ${fmt(integrity)}, index check ${fmt(indexes)} (rows not found)`,
    );
    const ratio = (indexes[1]?.ms ?? 0) / (integrity[1]?.ms ?? 1);
    console.log(`${driver}: index check / integrity_check = ${ratio.toFixed(2)} (page cache warm)`);
  } finally {
    db.close();
  }
  // Opening the store, as an agent does: the driver, the pragmas, the schema check and the index check.
  const times: number[] = [];
  for (let i = 0; i < 2; i += 1) times.push(await openTime(file, driver));
  console.log(`${driver}: opening the store ${times.map((ms) => `${ms.toFixed(0)} ms`).join(' / ')}`);
}

async function openTime(file: string, driver: SqliteDriverName): Promise<number> {
  const started = process.hrtime.bigint();
  const storage = createSqliteStorage({ path: file, driver }, { create: false });
  await storage.ensureSchema();
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  await storage.close();
  return ms;
}

const dir = await mkdtemp(join(tmpdir(), 'hyphae-bench-integrity-'));
try {
  console.log(
    `load average at start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(', ')} (Node.js ${process.versions.node})`,
  );
  const drivers: SqliteDriverName[] =
    nodeSqliteModule() === undefined ? ['better-sqlite3'] : ['better-sqlite3', 'node:sqlite'];
  for (const driver of drivers) await measure(driver, dir);
} finally {
  await rm(dir, { recursive: true, force: true });
}
