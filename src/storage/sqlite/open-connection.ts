/**
 * Opening one SQLite connection: load the driver, configure the connection, check the schema,
 * prepare the statements.
 */
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LedgerStorageUnavailableError } from '../../errors.js';
import { loadBetterSqlite3 } from './load-better-sqlite3.js';
import { mapSqliteError } from './map-sqlite-error.js';
import { ensureSqliteSchema, type SqliteTables } from './schema.js';
import type { SqliteDatabase } from './sqlite-database.js';
import { prepareTransitionStatements, type TransitionStatements } from './transition-rows.js';

/** An open, configured connection whose schema has been checked. */
export interface SqliteConnection {
  readonly db: SqliteDatabase;
  /** True when the driver opened the database (and so closes it). */
  readonly owned: boolean;
  readonly statements: TransitionStatements;
}

/** Everything needed to open a connection, fixed when the store is created. */
export interface SqliteConnectionPlan {
  /** A file to open (absolute, or `:memory:`), or the caller's database. */
  readonly source: { readonly file: string } | { readonly database: SqliteDatabase };
  readonly tables: SqliteTables;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly busyTimeoutMs: number;
  readonly location: string;
}

/** True for the file names SQLite treats as a private, non-durable database. */
export function isTransientFile(file: string): boolean {
  return file === '' || file === ':memory:';
}

async function openFile(file: string, busyTimeoutMs: number): Promise<SqliteDatabase> {
  const Database = await loadBetterSqlite3();
  try {
    if (!isTransientFile(file)) await mkdir(dirname(file), { recursive: true });
    return new Database(file, { timeout: busyTimeoutMs });
  } catch (cause) {
    throw new LedgerStorageUnavailableError('open', { cause });
  }
}

function configure(db: SqliteDatabase, plan: SqliteConnectionPlan, owned: boolean): void {
  // busy_timeout first: switching to WAL needs a lock another process may briefly hold.
  db.pragma(`busy_timeout = ${plan.busyTimeoutMs}`);
  // The journal mode is a property of the file; a caller's database keeps the mode its owner chose.
  if (owned) db.pragma('journal_mode = WAL');
  db.pragma(`synchronous = ${plan.synchronous}`);
}

/** Open (or adopt) the database, configure it, ensure the schema and prepare the statements. */
export async function openSqliteConnection(plan: SqliteConnectionPlan): Promise<SqliteConnection> {
  const owned = 'file' in plan.source;
  const db = 'file' in plan.source ? await openFile(plan.source.file, plan.busyTimeoutMs) : plan.source.database;
  const giveUpAt = Date.now() + plan.busyTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      configure(db, plan, owned);
      ensureSqliteSchema(db, plan.tables, plan.location);
      return { db, owned, statements: prepareTransitionStatements(db, plan.tables) };
    } catch (error) {
      if (isBusy(error) && Date.now() < giveUpAt) {
        await sleep(Math.min(5 * 2 ** Math.min(attempt, 4), 50) * (0.5 + Math.random()));
        continue;
      }
      if (owned) closeQuietly(db);
      throw mapSqliteError(error, 'open', plan.location);
    }
  }
}

/**
 * True for the lock errors SQLite can return without consulting the busy handler: switching a new
 * file to WAL, or recovering a WAL, while another process does the same. Opening retries them
 * until the busy timeout has passed.
 */
function isBusy(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

function closeQuietly(db: SqliteDatabase): void {
  try {
    db.close();
  } catch {
    // The open already failed; that failure is the one worth reporting.
  }
}
