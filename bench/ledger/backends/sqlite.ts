/**
 * The SQLite backends (a temp file opened by the driver, through better-sqlite3 or node:sqlite);
 * the baseline is the driver's statements run directly with the same library on a table created
 * from the driver's own DDL.
 */
import { join } from 'node:path';
import { nodeSqliteModule } from '../../../src/storage/sqlite/load-node-sqlite.js';
import { createSqliteStorage, type SqliteDriverName } from '../../../src/storage/sqlite.js';
import { openRawSqlite, readTransitionsDdl } from '../../lib/sqlite-raw.js';
import type { Backend, Target } from '../backend.js';

/** SQLite through `driver` with `synchronous` FULL (the driver's default) or NORMAL. */
export function sqliteBackend(driver: SqliteDriverName, synchronous: 'FULL' | 'NORMAL', target?: Target): Backend {
  // better-sqlite3 keeps the names of the earlier reports.
  const name =
    driver === 'better-sqlite3' ? `sqlite synchronous=${synchronous}` : `node:sqlite synchronous=${synchronous}`;
  const library = driver === 'better-sqlite3' ? 'better-sqlite3' : "node:sqlite's DatabaseSync";
  return {
    name,
    baseline: `the driver's statements run directly with ${library} (create = BEGIN IMMEDIATE, SELECT by key through each of its two indexes, SELECT by ticket, INSERT, COMMIT; then the CAS UPDATE)`,
    ...(target === undefined ? {} : { target }),
    available: async () =>
      driver === 'node:sqlite' && nodeSqliteModule() === undefined
        ? `this is Node.js ${process.versions.node}, without node:sqlite (22.13 and later)`
        : null,
    async open(dir) {
      const tag = `${driver === 'node:sqlite' ? 'node-' : ''}${synchronous.toLowerCase()}`;
      const file = join(dir, `ledger-${tag}.db`);
      const storage = createSqliteStorage({ path: file, driver }, { synchronous });
      await storage.ensureSchema();
      const ddl = readTransitionsDdl(file, driver);
      const raw = openRawSqlite(join(dir, `raw-${tag}.db`), ddl, { synchronous, busyTimeoutMs: 5000 }, driver);
      const label = `${name} raw`;
      return {
        storage: () => storage,
        baselines(writes) {
          const completed = writes.call.docs.at(-1) ?? '{}';
          return {
            call: { name: `${label}: create + update`, start: () => raw.write(writes.call.docs) },
            replay: { name: `${label}: create meeting the row`, start: () => raw.replay(completed) },
            sideEffect: { name: `${label}: create + 2 updates`, start: () => raw.write(writes.sideEffect.docs) },
          };
        },
        async close() {
          raw.close();
          await storage.close();
        },
      };
    },
  };
}
