/**
 * The SQLite backend (a temp file opened by the driver); its baseline is the driver's statements run
 * directly with better-sqlite3 on a table created from the driver's own DDL.
 */
import { join } from 'node:path';
import { createSqliteStorage } from '../../../src/storage/sqlite.js';
import { openRawSqlite, readTransitionsDdl } from '../../lib/sqlite-raw.js';
import type { Backend, Target } from '../backend.js';

/** SQLite with `synchronous` FULL (the driver's default) or NORMAL. */
export function sqliteBackend(synchronous: 'FULL' | 'NORMAL', target?: Target): Backend {
  const name = `sqlite synchronous=${synchronous}`;
  return {
    name,
    baseline:
      "the driver's statements run directly with better-sqlite3 (create = BEGIN IMMEDIATE, SELECT by key, SELECT by ticket, INSERT, COMMIT; then the CAS UPDATE)",
    ...(target === undefined ? {} : { target }),
    available: async () => null,
    async open(dir) {
      const file = join(dir, `ledger-${synchronous.toLowerCase()}.db`);
      const storage = createSqliteStorage({ path: file }, { synchronous });
      await storage.ensureSchema();
      const raw = openRawSqlite(join(dir, `raw-${synchronous.toLowerCase()}.db`), readTransitionsDdl(file), {
        synchronous,
        busyTimeoutMs: 5000,
      });
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
