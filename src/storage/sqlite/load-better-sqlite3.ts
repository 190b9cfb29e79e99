/**
 * Lazy loading of the optional `better-sqlite3` peer dependency.
 */
import { GuardError } from '../../errors.js';
import type { SqliteDatabase } from './sqlite-database.js';

/** The part of the `better-sqlite3` module the driver needs: its `Database` constructor. */
export interface BetterSqlite3Module {
  readonly default: new (filename: string, options: { readonly timeout: number }) => SqliteDatabase;
}

function importBetterSqlite3(): Promise<BetterSqlite3Module> {
  return import('better-sqlite3');
}

/**
 * Load the `better-sqlite3` `Database` constructor, or fail with `missing_peer_dependency`.
 *
 * @param importModule replaces the dynamic import (tests use it to simulate a missing package).
 */
export async function loadBetterSqlite3(
  importModule: () => Promise<BetterSqlite3Module> = importBetterSqlite3,
): Promise<BetterSqlite3Module['default']> {
  let loaded: BetterSqlite3Module;
  try {
    loaded = await importModule();
  } catch (cause) {
    const missing = (cause as { code?: unknown } | null)?.code === 'ERR_MODULE_NOT_FOUND';
    const problem = missing ? 'is not installed' : 'could not be loaded';
    throw new GuardError(
      'missing_peer_dependency',
      `The SQLite ledger storage needs the peer dependency \`better-sqlite3\`, which ${problem}: install it with \`npm install better-sqlite3\``,
      { cause },
    );
  }
  return loaded.default;
}
