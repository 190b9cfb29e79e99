/**
 * The SQLite drivers this runtime can test: better-sqlite3 always, node:sqlite where the runtime
 * has it (Node.js 22.13 and later).
 */

import { nodeSqliteModule } from '../../src/storage/sqlite/load-node-sqlite.js';
import type { SqliteDriverName } from '../../src/storage/sqlite.js';

/** The drivers to run a SQLite test against. */
export const SQLITE_DRIVERS: readonly SqliteDriverName[] =
  nodeSqliteModule() === undefined ? ['better-sqlite3'] : ['better-sqlite3', 'node:sqlite'];
