/**
 * Where a SQLite store beside the ledger (receipts, run snapshots) reads and writes: a file it opens
 * itself, or a caller's database it adopts and never closes.
 */
import { resolve } from 'node:path';
import { checkOptions, InvalidArgumentError, kindOf } from '../../invalid-argument.js';
import { isTransientFile, openSqliteFile } from './open-file.js';
import type { AnySqliteDatabase, SqliteDriverName } from './sqlite-database.js';
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
export function sqliteSourceOf(
  options: { readonly path: string; readonly driver?: SqliteDriverName } | { readonly database: AnySqliteDatabase },
): SqliteSource {
  if ('database' in options)
    return { file: undefined, driver: undefined, adopted: sqliteHandleOf(options.database), wal: false };
  const file = isTransientFile(options.path) ? ':memory:' : resolve(options.path);
  return { file, driver: checkDriverName(options.driver), adopted: undefined, wal: file !== ':memory:' };
}

/** The adopted handle, or the file opened (created whole when missing, with its meta table). */
export async function openSqliteSource(
  source: SqliteSource,
  settings: { readonly busyTimeoutMs: number; readonly metaTable: string; readonly location: string },
): Promise<SqliteHandle> {
  return (
    source.adopted ??
    openSqliteFile({
      file: source.file as string,
      driver: source.driver,
      busyTimeoutMs: settings.busyTimeoutMs,
      create: true,
      metaTable: settings.metaTable,
      location: settings.location,
    })
  );
}

/**
 * Throws {@link InvalidArgumentError} unless `options` is `{ path: string, driver? }` or
 * `{ database }` whose fields can be read.
 */
export function checkSqliteSource(fn: string, options: unknown): void {
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
