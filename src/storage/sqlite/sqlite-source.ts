/**
 * Where a SQLite store beside the ledger (receipts, run snapshots) reads and writes: a file it opens
 * itself, or a caller's database it adopts and never closes.
 */
import { resolve } from 'node:path';
import { checkOptions, InvalidArgumentError, kindOf } from '../../invalid-argument.js';
import { configureSqlite } from './open-connection.js';
import { isTransientFile, openSqliteFile } from './open-file.js';
import type { SqliteDriverName, SqliteLocation } from './sqlite-database.js';
import { checkDriverName } from './sqlite-driver.js';
import { type SqliteHandle, sqliteHandleOf } from './sqlite-handle.js';

/** A resolved source: the file to open (absolute, or `:memory:`), or the adopted handle. */
export interface SqliteSource {
  readonly file: string | undefined;
  readonly driver: SqliteDriverName | undefined;
  readonly adopted: SqliteHandle | undefined;
  /** Whether the store runs in WAL mode: a file of its own, not `:memory:` or a caller's database. */
  readonly wal: boolean;
}

/** Resolve the `{ path, driver? }` or `{ database }` options of a store. */
export function sqliteSourceOf(options: SqliteLocation): SqliteSource {
  if ('database' in options)
    return { file: undefined, driver: undefined, adopted: sqliteHandleOf(options.database), wal: false };
  const file = isTransientFile(options.path) ? ':memory:' : resolve(options.path);
  return { file, driver: checkDriverName(options.driver), adopted: undefined, wal: file !== ':memory:' };
}

/** How a store beside the ledger opens its connection. */
export interface SqliteStoreOpening<S> {
  readonly busyTimeoutMs: number;
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly metaTable: string;
  readonly location: string;
  /** Check the store's schema and prepare its statements on the configured connection. */
  prepare(db: SqliteHandle): S;
  /** The error an open that failed rejects with. */
  mapError(error: unknown): unknown;
}

/** A store's connection, opened on first use and closed with the store. */
export interface SqliteStoreConnection<S> {
  /**
   * `body` on the open connection, its errors passed through `mapError`. An open that failed is
   * forgotten, so the next call tries again (a busy lock may have cleared).
   */
  run<T>(body: (db: SqliteHandle, statements: S) => T, mapError: (error: unknown) => unknown): Promise<T>;
  /** Close the connection once an open under way has settled; a caller's database is never closed. */
  close(): Promise<void>;
}

/**
 * The connection of a store over `source`: the adopted handle, or the file opened (created whole
 * when missing, with its meta table), configured, with the store's statements prepared.
 */
export function sqliteStoreConnection<S>(
  source: SqliteSource,
  opening: SqliteStoreOpening<S>,
): SqliteStoreConnection<S> {
  const { busyTimeoutMs, synchronous, metaTable, location } = opening;
  let connecting: Promise<{ db: SqliteHandle; statements: S }> | null = null;

  async function open(): Promise<{ db: SqliteHandle; statements: S }> {
    let db: SqliteHandle;
    try {
      db =
        source.adopted ??
        (await openSqliteFile({
          file: source.file as string,
          driver: source.driver,
          busyTimeoutMs,
          create: true,
          metaTable,
          location,
        }));
    } catch (error) {
      throw opening.mapError(error);
    }
    try {
      configureSqlite(db, { busyTimeoutMs, synchronous, wal: source.wal });
      return { db, statements: opening.prepare(db) };
    } catch (error) {
      if (source.file !== undefined) db.close();
      throw opening.mapError(error);
    }
  }

  return {
    async run(body, mapError) {
      connecting ??= open().catch((error: unknown) => {
        connecting = null;
        throw error;
      });
      const { db, statements } = await connecting;
      try {
        return body(db, statements);
      } catch (error) {
        throw mapError(error);
      }
    },
    async close() {
      const pending = connecting;
      connecting = null;
      const connection = pending === null ? null : await pending.catch(() => null);
      if (connection !== null && source.file !== undefined) connection.db.close();
    },
  };
}

/**
 * Throws {@link InvalidArgumentError} unless a store's `options` are `{ path: string, driver? }` or
 * `{ database }` and its `settings` an object (or `undefined`), each with fields that can be read.
 */
export function checkSqliteArguments(fn: string, options: unknown, settings: unknown): void {
  checkSqliteSource(fn, options);
  checkOptions(fn, settings, true, 'settings');
}

function checkSqliteSource(fn: string, options: unknown): void {
  checkOptions(fn, options, false);
  const given = options as { readonly path?: unknown; readonly database?: unknown };
  if ('database' in given) {
    if (typeof given.database !== 'object' || given.database === null)
      throw new InvalidArgumentError(
        fn,
        'options.database',
        `must be a SQLite database, got ${kindOf(given.database)}`,
      );
    return;
  }
  if (typeof given.path !== 'string')
    throw new InvalidArgumentError(
      fn,
      'options.path',
      `must be a file path (or \`:memory:\`), got ${kindOf(given.path)}; or pass \`database\``,
    );
}
