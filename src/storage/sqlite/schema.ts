/**
 * The SQLite driver's schema: a `meta` table holding the schema version and the ledger id, and the
 * `transitions` table.
 */
import { randomUUID } from 'node:crypto';
import { InvalidOptionError, LedgerMissingError, LedgerStorageCorruptError } from '../../errors.js';
import { LEDGER_CREATED_ROW, LEDGER_ID_ROW, metaTableSql } from './open-file.js';
import type { SqliteHandle } from './sqlite-handle.js';

/** The schema version this code writes and reads. */
export const SQLITE_SCHEMA_VERSION = 1;

/** The table names of one store, unquoted (every name is a plain identifier). */
export interface SqliteTables {
  readonly meta: string;
  readonly transitions: string;
}

const PREFIX_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$|^$/;

/** The table names for `prefix`; a prefix that is not a plain SQL identifier is refused. */
export function sqliteTables(prefix: string): SqliteTables {
  if (!PREFIX_PATTERN.test(prefix)) {
    throw new InvalidOptionError(
      'tablePrefix',
      `Table prefix \`${prefix}\` must be letters, digits and underscores, not starting with a digit`,
    );
  }
  return { meta: `${prefix}meta`, transitions: `${prefix}transitions` };
}

/**
 * The name of the transitions table's second index of the key.
 *
 * The create path takes "no row has this key" for "this call never ran", so one damaged index
 * entry must not be able to say it alone: the key is held by the table's `UNIQUE` index and again
 * by this one (its own b-tree, its own pages), and a create looks it up through both.
 */
export function keyWitnessIndex(tables: SqliteTables): string {
  return `${tables.transitions}_key_witness_idx`;
}

/**
 * The statement creating the key's second index. An ordinary index: every SQLite writer keeps it,
 * including versions of hyphae that do not know it, so adding it needs no new schema version.
 */
function keyWitnessSql(tables: SqliteTables): string {
  return `CREATE INDEX IF NOT EXISTS "${keyWitnessIndex(tables)}" ON "${tables.transitions}" (key)`;
}

function createStatements(tables: SqliteTables): string {
  const t = tables.transitions;
  return `
    CREATE TABLE IF NOT EXISTS "${t}" (
      key TEXT PRIMARY KEY NOT NULL,
      ticket_key TEXT UNIQUE,
      tool TEXT NOT NULL,
      kind TEXT NOT NULL,
      outcome TEXT NOT NULL,
      updated_at INTEGER NOT NULL,
      version INTEGER NOT NULL,
      doc TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS "${t}_updated_idx" ON "${t}" (updated_at DESC, key DESC);
    CREATE INDEX IF NOT EXISTS "${t}_outcome_idx" ON "${t}" (outcome, updated_at DESC, key DESC);
    CREATE INDEX IF NOT EXISTS "${t}_tool_idx" ON "${t}" (tool, updated_at DESC, key DESC);
    ${keyWitnessSql(tables)};
  `;
}

function tableExists(db: SqliteHandle, name: string, type: 'table' | 'index' = 'table'): boolean {
  const row = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = ? AND name = ?`).get(type, name);
  return row !== undefined;
}

/**
 * Add the key's second index to a ledger written before it existed (under the write lock, so two
 * processes opening the file at once build it once). Building it reads the whole table once.
 */
function ensureKeyWitness(db: SqliteHandle, tables: SqliteTables): void {
  if (tableExists(db, keyWitnessIndex(tables), 'index')) return;
  db.immediate(() => db.exec(keyWitnessSql(tables)));
}

function readVersion(db: SqliteHandle, tables: SqliteTables): unknown {
  if (!tableExists(db, tables.meta)) return undefined;
  const row = db.prepare(`SELECT value FROM "${tables.meta}" WHERE name = 'schema_version'`).get() as
    | { value?: unknown }
    | undefined;
  return row?.value;
}

/** True when the store is at the current version; throws when it cannot be trusted. */
function checkVersion(db: SqliteHandle, tables: SqliteTables, location: string): boolean {
  const stored = readVersion(db, tables);
  if (stored === undefined) return false;
  const version = typeof stored === 'string' && /^[1-9][0-9]*$/.test(stored) ? Number(stored) : Number.NaN;
  if (Number.isNaN(version)) {
    throw new LedgerStorageCorruptError(location, `schema version \`${String(stored)}\` is not a version number`);
  }
  if (version > SQLITE_SCHEMA_VERSION) {
    throw new LedgerStorageCorruptError(
      location,
      `schema version \`${version}\` is newer than this version of hyphae reads (\`${SQLITE_SCHEMA_VERSION}\`); upgrade hyphae`,
    );
  }
  // A version row without its table means records were lost; recreating it would read as empty.
  if (!tableExists(db, tables.transitions)) {
    throw new LedgerStorageCorruptError(location, `table \`${tables.transitions}\` is missing`);
  }
  return true;
}

/**
 * Create the tables when absent and check the schema version; idempotent and safe to run from
 * several processes at once (the creation runs under `BEGIN IMMEDIATE`). A ledger written before the
 * key's second index existed gets it here. With `create: false` a
 * database without the schema is refused as corrupt: the caller said the ledger exists.
 */
export function ensureSqliteSchema(db: SqliteHandle, tables: SqliteTables, location: string, create = true): void {
  if (checkVersion(db, tables, location)) {
    ensureKeyWitness(db, tables);
    return;
  }
  db.immediate(() => {
    // Re-read under the write lock: another process may have created the schema meanwhile.
    if (checkVersion(db, tables, location)) {
      db.exec(keyWitnessSql(tables));
      return;
    }
    if (!create) {
      throw new LedgerMissingError(
        location,
        `it holds no ledger (no \`schema_version\` row in \`${tables.meta}\`), and the store was opened with \`create: false\` (for a ledger that must exist)`,
      );
    }
    db.exec(metaTableSql(tables.meta));
    db.exec(createStatements(tables));
    const insert = db.prepare(`INSERT OR IGNORE INTO "${tables.meta}" (name, value) VALUES (?, ?)`);
    insert.run('schema_version', String(SQLITE_SCHEMA_VERSION));
    // A file hyphae created already has its id; a database shared with other tables gets one now.
    insert.run(LEDGER_ID_ROW, randomUUID());
    insert.run(LEDGER_CREATED_ROW, String(Date.now()));
  });
}

/** When the ledger was initialised (epoch ms); null for a file written before the row existed. */
export function readLedgerCreatedAt(db: SqliteHandle, tables: SqliteTables): number | null {
  const row = db.prepare(`SELECT value FROM "${tables.meta}" WHERE name = ?`).get(LEDGER_CREATED_ROW) as
    | { value?: unknown }
    | undefined;
  const at = typeof row?.value === 'string' ? Number(row.value) : Number.NaN;
  return Number.isFinite(at) ? at : null;
}

/** The id written when the ledger's file (or schema) was created; null for a schema older than ids. */
export function readLedgerId(db: SqliteHandle, tables: SqliteTables): string | null {
  const row = db.prepare(`SELECT value FROM "${tables.meta}" WHERE name = ?`).get(LEDGER_ID_ROW) as
    | { value?: unknown }
    | undefined;
  return typeof row?.value === 'string' ? row.value : null;
}
