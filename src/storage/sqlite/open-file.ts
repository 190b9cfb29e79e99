/**
 * Opening a database file the store owns, without ever taking an emptied ledger for a new one.
 *
 * A new file is built aside and linked into place whole (WAL mode set, the `meta` table holding a
 * fresh ledger id), so no process ever sees a file hyphae created at size 0: two processes
 * creating one path both open the same, complete file (the second link fails with `EEXIST`). A
 * file found at size 0 was therefore truncated (a copy that failed, `> ledger.db`) and is refused
 * rather than opened as an empty ledger, on which every completed call would run again.
 */
import { randomUUID } from 'node:crypto';
import { constants } from 'node:fs';
import { copyFile, link, mkdir, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { LedgerMissingError, LedgerStorageCorruptError, LedgerStorageUnavailableError } from '../../errors.js';
import { claimFileForDriver } from './driver-claims.js';
import type { SqliteDriverName } from './sqlite-database.js';
import { loadSqliteDriver, type SqliteOpener } from './sqlite-driver.js';
import type { SqliteHandle } from './sqlite-handle.js';

/** What to open and how. */
export interface SqliteFilePlan {
  /** Absolute path, or `:memory:`. */
  readonly file: string;
  readonly driver: SqliteDriverName | undefined;
  readonly busyTimeoutMs: number;
  /** False: the file must exist (a ledger the caller knows was created); it is never created. */
  readonly create: boolean;
  /** The `meta` table of the store's prefix, where the ledger id of a new file goes. */
  readonly metaTable: string;
  /** How errors name the store. */
  readonly location: string;
}

/** The name of the `meta` row holding the id a new ledger file gets when it is created. */
export const LEDGER_ID_ROW = 'ledger_id';
/** The meta row holding when the ledger was initialised (epoch ms, as text). */
export const LEDGER_CREATED_ROW = 'ledger_created_at';

/** The statement that creates a `meta` table (the same text in every store of the file). */
export const metaTableSql = (meta: string): string =>
  `CREATE TABLE IF NOT EXISTS "${meta}" (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL)`;

/** A file the stores refuse to open (missing with `create: false`, or emptied); `reason` says why. */
export class SqliteFileRefusedError extends LedgerStorageCorruptError {
  readonly reason: string;

  constructor(location: string, reason: string) {
    super(location, reason);
    this.reason = reason;
  }
}

/** A ledger file that does not exist, opened with `create: false`: a {@link LedgerMissingError}. */
export class SqliteFileMissingError extends LedgerMissingError {
  readonly reason: string;

  constructor(location: string, reason: string) {
    super(location, reason);
    this.reason = reason;
  }
}

/** True for the file names SQLite treats as a private, non-durable database. */
export function isTransientFile(file: string): boolean {
  return file === '' || file === ':memory:';
}

async function sizeOf(file: string): Promise<number | null> {
  try {
    return (await stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new LedgerStorageUnavailableError('open', { cause: error });
  }
}

/** Build a new database aside and link it into place; losing the race to another creator is fine. */
async function createWhole(opener: SqliteOpener, plan: SqliteFilePlan): Promise<void> {
  await mkdir(dirname(plan.file), { recursive: true });
  const aside = `${plan.file}.${randomUUID().slice(0, 8)}.hyphae-new`;
  try {
    const db = opener.open(aside, plan.busyTimeoutMs);
    try {
      db.exec('PRAGMA journal_mode = WAL');
      db.exec(metaTableSql(plan.metaTable));
      const insert = db.prepare(`INSERT INTO "${plan.metaTable}" (name, value) VALUES (?, ?)`);
      insert.run(LEDGER_ID_ROW, randomUUID());
      insert.run(LEDGER_CREATED_ROW, String(Date.now()));
    } finally {
      db.close();
    }
    try {
      await link(aside, plan.file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') return;
      // A file system without hard links: an exclusive copy still never replaces another's file.
      if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV') throw error;
      await copyFile(aside, plan.file, constants.COPYFILE_EXCL).catch((copyError: unknown) => {
        if ((copyError as NodeJS.ErrnoException).code !== 'EEXIST') throw copyError;
      });
    }
  } catch (error) {
    throw error instanceof LedgerStorageCorruptError
      ? error
      : new LedgerStorageUnavailableError('open', { cause: error });
  } finally {
    await Promise.all(['', '-wal', '-shm'].map((suffix) => rm(`${aside}${suffix}`, { force: true })));
  }
}

/**
 * Open the file of `plan` with its driver. A missing file is created whole (refused with
 * `create: false`); a file of 0 bytes is refused as corrupt; a file the other driver has open in
 * this process is refused (`sqlite_driver_conflict`).
 */
export async function openSqliteFile(plan: SqliteFilePlan): Promise<SqliteHandle> {
  const opener = await loadSqliteDriver(plan.driver);
  if (isTransientFile(plan.file)) return openOrUnavailable(opener, plan);
  const release = claimFileForDriver(plan.file, opener.driver);
  let handle: SqliteHandle;
  try {
    await prepareFile(opener, plan);
    handle = openOrUnavailable(opener, plan);
  } catch (error) {
    release();
    throw error;
  }
  return {
    ...handle,
    close() {
      try {
        handle.close();
      } finally {
        release();
      }
    },
  };
}

async function prepareFile(opener: SqliteOpener, plan: SqliteFilePlan): Promise<void> {
  const size = await sizeOf(plan.file);
  if (size === null) {
    if (!plan.create) {
      throw new SqliteFileMissingError(
        plan.location,
        'the file does not exist, and the store was opened with `create: false` (for a ledger that must exist); restore it from a backup',
      );
    }
    await createWhole(opener, plan);
  } else if (size === 0) {
    throw new SqliteFileRefusedError(
      plan.location,
      'the file is empty (0 bytes), and a ledger file hyphae created never is: it was truncated; restore it from a backup, or delete it to start a new, empty ledger',
    );
  }
}

function openOrUnavailable(opener: SqliteOpener, plan: SqliteFilePlan): SqliteHandle {
  try {
    return opener.open(plan.file, plan.busyTimeoutMs);
  } catch (cause) {
    throw new LedgerStorageUnavailableError('open', { cause });
  }
}
