import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, it } from 'vitest';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { describeStorageConformance } from '../../src/testing/index.js';

const dir = mkdtempSync(join(tmpdir(), 'hyphae-sqlite-conformance-'));
const callerDatabases: Database.Database[] = [];

afterAll(() => {
  for (const db of callerDatabases) db.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

// Each open() is a new connection to one file, as separate processes would have. better-sqlite3 by
// name: on a runtime with node:sqlite the default is that (test/storage/sqlite-node-driver.test.ts).
describeStorageConformance({
  name: 'sqlite through better-sqlite3',
  open: () => createSqliteStorage({ path: join(dir, 'opened-by-driver.db'), driver: 'better-sqlite3' }),
  api: { describe, it },
  identity: true,
});

// The caller's own connections (rollback journal, custom prefix, relaxed sync): the contract holds too.
describeStorageConformance({
  name: 'sqlite with caller databases',
  open: () => {
    const db = new Database(join(dir, 'opened-by-caller.db'));
    callerDatabases.push(db);
    return createSqliteStorage({ database: db }, { tablePrefix: 'custom_', synchronous: 'NORMAL' });
  },
  api: { describe, it },
  identity: true,
  concurrency: [2, 8],
});
