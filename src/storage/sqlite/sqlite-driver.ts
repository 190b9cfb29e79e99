/**
 * Choosing the SQLite driver: Node's built-in `node:sqlite` where the runtime has it, else the
 * optional `better-sqlite3` peer, or the one the caller names.
 */
import { GuardError, InvalidOptionError, MissingPeerDependencyError } from '../../errors.js';
import { type BetterSqlite3Module, loadBetterSqlite3 } from './load-better-sqlite3.js';
import { type NodeSqliteModule, nodeSqliteModule } from './load-node-sqlite.js';
import type { SqliteDriverName } from './sqlite-database.js';
import { type SqliteHandle, sqliteHandleOf } from './sqlite-handle.js';

/** A loaded driver: it opens (and creates) database files. */
export interface SqliteOpener {
  readonly driver: SqliteDriverName;
  open(file: string, busyTimeoutMs: number): SqliteHandle;
}

const DRIVERS: readonly SqliteDriverName[] = ['node:sqlite', 'better-sqlite3'];

/** Refuse a driver name that is neither of the two (a typo in a config, an untyped caller). */
export function checkDriverName(driver: unknown): SqliteDriverName | undefined {
  if (driver === undefined || DRIVERS.includes(driver as SqliteDriverName)) return driver as SqliteDriverName;
  throw new InvalidOptionError(
    'driver',
    `SQLite \`driver\` must be \`node:sqlite\` or \`better-sqlite3\`, got \`${String(driver)}\``,
  );
}

/** Where the two drivers come from (tests replace them to stand for another runtime). */
export interface SqliteDriverSources {
  readonly nodeSqlite: () => NodeSqliteModule | undefined;
  readonly importBetterSqlite3?: () => Promise<BetterSqlite3Module>;
}

const RUNTIME: SqliteDriverSources = { nodeSqlite: nodeSqliteModule };

function nodeOpener(sources: SqliteDriverSources): SqliteOpener | undefined {
  const sqlite = sources.nodeSqlite();
  if (sqlite === undefined) return undefined;
  return {
    driver: 'node:sqlite',
    open: (file, busyTimeoutMs) => sqliteHandleOf(new sqlite.DatabaseSync(file, { timeout: busyTimeoutMs })),
  };
}

async function betterOpener(sources: SqliteDriverSources): Promise<SqliteOpener> {
  const Database = await loadBetterSqlite3(sources.importBetterSqlite3);
  return {
    driver: 'better-sqlite3',
    open: (file, busyTimeoutMs) => sqliteHandleOf(new Database(file, { timeout: busyTimeoutMs })),
  };
}

/**
 * Load the driver `requested` names, or by default `node:sqlite` when the runtime has it and
 * `better-sqlite3` otherwise. Fails with a `GuardError` naming what to install or choose.
 */
export async function loadSqliteDriver(
  requested: SqliteDriverName | undefined,
  sources: SqliteDriverSources = RUNTIME,
): Promise<SqliteOpener> {
  if (requested === 'better-sqlite3') return betterOpener(sources);
  const node = nodeOpener(sources);
  if (node !== undefined) return node;
  const runtime = `this is Node.js ${process.versions.node}`;
  if (requested === 'node:sqlite') {
    throw new GuardError(
      'sqlite_driver_unavailable',
      `The SQLite driver \`node:sqlite\` needs Node.js 22.13 or later (${runtime}): choose \`driver: 'better-sqlite3'\` and install it with \`npm install better-sqlite3\``,
    );
  }
  try {
    return await betterOpener(sources);
  } catch (error) {
    if (!(error instanceof MissingPeerDependencyError)) throw error;
    const problem = error.message.includes('is not installed') ? 'is not installed' : 'could not be loaded';
    throw new MissingPeerDependencyError(
      ['better-sqlite3'],
      `The SQLite ledger storage needs Node.js 22.13 or later (built-in \`node:sqlite\`; ${runtime}) or the peer dependency \`better-sqlite3\`, which ${problem}: install it with \`npm install better-sqlite3\``,
      { cause: error.cause },
    );
  }
}
