/**
 * One SQLite driver per file per process.
 *
 * node:sqlite and better-sqlite3 each carry their own copy of SQLite. SQLite's locks are POSIX
 * advisory locks, which belong to the process: one copy neither sees the locks the other holds on
 * a file nor keeps its own when the other closes a descriptor of that file, so two copies writing
 * one file from one process can both think they hold the write lock (and corrupt it). Across
 * processes the drivers mix safely: each process has its own locks. The stores therefore record
 * which driver has each file open in this process and refuse the other one while it does.
 */
import { GuardError } from '../../errors.js';
import type { SqliteDriverName } from './sqlite-database.js';

const claims = new Map<string, { readonly driver: SqliteDriverName; count: number }>();

/**
 * Claim `file` for `driver` in this process; the returned function gives the claim back (once).
 * Throws `sqlite_driver_conflict` while the other driver has the file open here.
 */
export function claimFileForDriver(file: string, driver: SqliteDriverName): () => void {
  const held = claims.get(file);
  if (held !== undefined && held.driver !== driver) {
    throw new GuardError(
      'sqlite_driver_conflict',
      `SQLite file \`${file}\` is open through \`${held.driver}\` in this process; opening it through \`${driver}\` as well would defeat SQLite's locking (each driver has its own SQLite, and POSIX locks belong to the process): use one driver per file in a process`,
    );
  }
  if (held === undefined) claims.set(file, { driver, count: 1 });
  else held.count += 1;
  let released = false;
  return function releaseFileClaim() {
    if (released) return;
    released = true;
    const current = claims.get(file);
    if (current === undefined) return;
    current.count -= 1;
    if (current.count === 0) claims.delete(file);
  };
}
