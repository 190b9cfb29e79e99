/**
 * Opening one SQLite connection: load the driver, configure the connection, check the schema,
 * prepare the statements.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { checkTransitionIndexes } from './check-indexes.js';
import { mapSqliteError } from './map-sqlite-error.js';
import { openSqliteFile } from './open-file.js';
import { ensureSqliteSchema, type SqliteTables } from './schema.js';
import type { AnySqliteDatabase, SqliteDriverName } from './sqlite-database.js';
import { sqliteErrorCode } from './sqlite-error-code.js';
import { type SqliteHandle, sqliteHandleOf } from './sqlite-handle.js';
import { prepareTransitionStatements, type TransitionStatements } from './transition-rows.js';

export { isTransientFile } from './open-file.js';

/** An open, configured connection whose schema has been checked. */
export interface SqliteConnection {
  readonly db: SqliteHandle;
  /** True when the driver opened the database (and so closes it). */
  readonly owned: boolean;
  readonly statements: TransitionStatements;
}

/** Everything needed to open a connection, fixed when the store is created. */
export interface SqliteConnectionPlan {
  /** A file to open (absolute, or `:memory:`) with a driver, or the caller's database. */
  readonly source:
    | { readonly file: string; readonly driver: SqliteDriverName | undefined }
    | { readonly database: AnySqliteDatabase };
  readonly tables: SqliteTables;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly busyTimeoutMs: number;
  /** False: the ledger must already exist (file and schema); nothing is created. */
  readonly create: boolean;
  readonly location: string;
}

/**
 * Set the pragmas every connection of a store needs: busy timeout, WAL (on a file the store opened;
 * a caller's database keeps the journal mode its owner chose) and the synchronous level.
 */
export function configureSqlite(
  db: SqliteHandle,
  settings: { readonly busyTimeoutMs: number; readonly synchronous: 'FULL' | 'NORMAL'; readonly wal: boolean },
): void {
  // busy_timeout first: switching to WAL needs a lock another process may briefly hold.
  db.exec(`PRAGMA busy_timeout = ${settings.busyTimeoutMs}`);
  if (settings.wal) db.exec('PRAGMA journal_mode = WAL');
  db.exec(`PRAGMA synchronous = ${settings.synchronous}`);
}

/**
 * Open (or adopt) the database, configure it, ensure the schema, check the key and ticket indexes
 * against the table (a damaged index fails closed here, before any call can be taken for new) and
 * prepare the statements.
 */
export async function openSqliteConnection(plan: SqliteConnectionPlan): Promise<SqliteConnection> {
  const { source } = plan;
  const owned = 'file' in source;
  const db =
    'file' in source
      ? await openSqliteFile({
          file: source.file,
          driver: source.driver,
          busyTimeoutMs: plan.busyTimeoutMs,
          create: plan.create,
          metaTable: plan.tables.meta,
          location: plan.location,
        })
      : sqliteHandleOf(source.database);
  const giveUpAt = Date.now() + plan.busyTimeoutMs;
  for (let attempt = 0; ; attempt++) {
    try {
      configureSqlite(db, { ...plan, wal: owned && db.file !== ':memory:' });
      ensureSqliteSchema(db, plan.tables, plan.location, plan.create);
      checkTransitionIndexes(db, plan.tables, plan.location);
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
export function isBusy(error: unknown): boolean {
  const code = sqliteErrorCode(error);
  return code !== undefined && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

function closeQuietly(db: SqliteHandle): void {
  try {
    db.close();
  } catch {
    // The open already failed; that failure is the one worth reporting.
  }
}
