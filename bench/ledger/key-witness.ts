/**
 * What the second witness of a key costs the SQLite create path: the create transaction
 * (`BEGIN IMMEDIATE`; lookup by key; [second lookup]; lookup by ticket; `INSERT`; `COMMIT`) on a
 * ledger without a second key index (the baseline), with the store's own second index (the key again,
 * probed `INDEXED BY`) and with a smaller alternative (an expression index on the key's first 16
 * characters), each through the driver's handle, in one process, in interleaved rounds.
 *
 *   node bench/run-bundled.mjs bench/ledger/key-witness.ts [--records N] [--creates N] [--rounds N]
 *
 * Each ledger starts with `--records` completed records (so every index is a few levels deep), then
 * each round times `--creates` fresh creates per variant. Prints µs per create (median round) and the
 * ratio to the baseline, for `synchronous` FULL (the default) and NORMAL on a file, and in memory
 * (no I/O, so the CPU the second lookup and index cost shows undiluted); then what adding the index
 * to an existing ledger and checking it on open cost. Writes no results file.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { encodeRecord } from '../../src/storage/record-codec.js';
import { indexCheckSql } from '../../src/storage/sqlite/check-indexes.js';
import { nodeSqliteModule } from '../../src/storage/sqlite/load-node-sqlite.js';
import { configureSqlite } from '../../src/storage/sqlite/open-connection.js';
import { openSqliteFile } from '../../src/storage/sqlite/open-file.js';
import { ensureSqliteSchema, keyWitnessIndex, sqliteTables } from '../../src/storage/sqlite/schema.js';
import type { SqliteHandle } from '../../src/storage/sqlite/sqlite-handle.js';
import { insertParams, prepareTransitionStatements } from '../../src/storage/sqlite/transition-rows.js';
import type { SqliteDriverName } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { randomKey } from '../lib/random-key.js';

const arg = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : Number(process.argv[at + 1]);
};
const RECORDS = arg('--records', 20_000);
const CREATES = arg('--creates', 300);
const ROUNDS = arg('--rounds', 7);

const tables = sqliteTables('hyphae_');
const T = `"${tables.transitions}"`;
const WITNESS = keyWitnessIndex(tables);
const PREFIX = `${tables.transitions}_key_prefix_idx`;

/** `synchronous` FULL (the default) or NORMAL on a file; or an in-memory database (no I/O: the CPU alone). */
type Mode = 'FULL' | 'NORMAL' | 'memory';
type Variant = 'baseline' | 'second index (key)' | 'prefix index (16 chars)';
const VARIANTS: readonly Variant[] = ['baseline', 'second index (key)', 'prefix index (16 chars)'];

/** A ledger file shaped for `variant`, and its create function. */
async function openVariant(
  dir: string,
  driver: SqliteDriverName,
  mode: Mode,
  variant: Variant,
): Promise<{ db: SqliteHandle; create: () => void }> {
  const file =
    mode === 'memory' ? ':memory:' : join(dir, `${driver.replace(':', '-')}-${mode}-${VARIANTS.indexOf(variant)}.db`);
  const db = await openSqliteFile({
    file,
    driver,
    busyTimeoutMs: 5000,
    create: true,
    metaTable: tables.meta,
    location: file,
  });
  configureSqlite(db, { busyTimeoutMs: 5000, synchronous: mode === 'memory' ? 'FULL' : mode, wal: mode !== 'memory' });
  ensureSqliteSchema(db, tables, file);
  const statements = prepareTransitionStatements(db, tables);
  // Dropped after the statements are prepared (the baseline never runs the one that names it).
  if (variant !== 'second index (key)') db.exec(`DROP INDEX IF EXISTS "${WITNESS}"`);
  if (variant === 'prefix index (16 chars)') db.exec(`CREATE INDEX "${PREFIX}" ON ${T} (substr(key, 1, 16))`);
  db.immediate(() => {
    for (let i = 0; i < RECORDS; i += 1) {
      const record = makeTestRecord({ key: randomKey(), ticketKey: randomKey(), outcome: 'COMPLETED', version: 2 });
      statements.insert.run(...insertParams(record, encodeRecord(record)));
    }
  });
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  const prefixed = `SELECT key FROM ${T} INDEXED BY "${PREFIX}" WHERE substr(key, 1, 16) = substr(?, 1, 16) AND key = ?`;
  const prefix = variant === 'prefix index (16 chars)' ? db.prepare(prefixed) : null;
  const second: ((key: string) => unknown) | null =
    variant === 'baseline'
      ? null
      : prefix === null
        ? (key) => statements.selectByKeyWitness.get(key)
        : (key) => prefix.get(key, key);
  const template = makeTestRecord();
  const doc = encodeRecord(template);
  const create = (): void => {
    const key = randomKey();
    const ticketKey = randomKey();
    db.immediate(() => {
      if (statements.selectByKey.get(key) !== undefined) throw new Error('a fresh key was found');
      if (second !== null && second(key) !== undefined) throw new Error('a fresh key was found');
      if (statements.selectByTicket.get(ticketKey) !== undefined) throw new Error('a fresh ticket was found');
      statements.insert.run(...insertParams({ ...template, key, ticketKey }, doc));
    });
  };
  return { db, create };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function measure(dir: string, driver: SqliteDriverName, mode: Mode): Promise<void> {
  const opened = await Promise.all(VARIANTS.map((variant) => openVariant(dir, driver, mode, variant)));
  const perCreate = new Map<Variant, number[]>(VARIANTS.map((variant) => [variant, []]));
  try {
    for (const { create } of opened) for (let i = 0; i < 20; i += 1) create();
    for (let round = 0; round < ROUNDS; round += 1) {
      // Interleaved, and in a rotating order, so drift in the machine's load falls on every variant.
      for (let v = 0; v < VARIANTS.length; v += 1) {
        const index = (v + round) % VARIANTS.length;
        const variant = VARIANTS[index] as Variant;
        const { create } = opened[index] as { create: () => void };
        const started = process.hrtime.bigint();
        for (let i = 0; i < CREATES; i += 1) create();
        perCreate.get(variant)?.push(Number(process.hrtime.bigint() - started) / 1e3 / CREATES);
      }
    }
  } finally {
    for (const { db } of opened) db.close();
  }
  const base = median(perCreate.get('baseline') ?? []);
  for (const variant of VARIANTS) {
    const us = median(perCreate.get(variant) ?? []);
    console.log(
      `${driver} ${mode === 'memory' ? 'in memory' : `synchronous=${mode}`} ${variant}: ${us.toFixed(1)} µs/create, ${(us / base).toFixed(3)} × baseline (+${(us - base).toFixed(1)} µs)`,
    );
  }
}

/**
 * The one-time cost of adding the second index to a ledger written without it (what the first open
 * by this version does), and what the second index adds to the open-time index check, on a file of
 * `RECORDS` records (page cache warm: the second run of each).
 */
async function openCosts(dir: string, driver: SqliteDriverName): Promise<void> {
  const { db } = await openVariant(join(dir, 'open'), driver, 'NORMAL', 'baseline');
  try {
    const ms = (fn: () => void): number => {
      const started = process.hrtime.bigint();
      fn();
      return Number(process.hrtime.bigint() - started) / 1e6;
    };
    const build = ms(() => ensureSqliteSchema(db, tables, 'bench'));
    const full = db.prepare(indexCheckSql(tables));
    const withoutSecond = db.prepare(
      indexCheckSql(tables)
        .split('\n')
        .filter((line) => !line.includes(WITNESS))
        .join('\n'),
    );
    const times = (statement: { get(): unknown }): number => {
      ms(() => statement.get());
      return ms(() => statement.get());
    };
    const [before, after] = [times(withoutSecond), times(full)];
    console.log(
      `${driver}: adding the second index to ${RECORDS} records ${build.toFixed(0)} ms; open check ${before.toFixed(0)} ms without it, ${after.toFixed(0)} ms with it (${(after / before).toFixed(2)} ×)`,
    );
  } finally {
    db.close();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'hyphae-bench-key-witness-'));
try {
  console.log(
    `load average at start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(', ')} (Node.js ${process.versions.node}); ${RECORDS} records, ${ROUNDS} rounds of ${CREATES} creates`,
  );
  const drivers: SqliteDriverName[] =
    nodeSqliteModule() === undefined ? ['better-sqlite3'] : ['better-sqlite3', 'node:sqlite'];
  for (const driver of drivers) {
    for (const mode of ['FULL', 'NORMAL', 'memory'] as const) await measure(dir, driver, mode);
    await openCosts(dir, driver);
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
