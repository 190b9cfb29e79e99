/**
 * Lazy loading of the optional `better-sqlite3` peer dependency.
 */
import { importPeerDependency } from '../../peer-dependency.js';
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
  const loaded = await importPeerDependency(importModule, 'better-sqlite3', 'The SQLite ledger storage');
  return loaded.default;
}
