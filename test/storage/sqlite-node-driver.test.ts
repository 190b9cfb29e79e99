import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GuardError } from '../../src/errors.js';
import { nodeSqliteModule } from '../../src/storage/sqlite/load-node-sqlite.js';
import { loadSqliteDriver } from '../../src/storage/sqlite/sqlite-driver.js';
import { createSqliteStorage, type NodeSqliteDatabase } from '../../src/storage/sqlite.js';
import { describeStorageConformance, makeTestRecord } from '../../src/testing/index.js';

const dir = mkdtempSync(join(tmpdir(), 'hyphae-sqlite-node-'));
const sqlite = nodeSqliteModule();
const callerDatabases: NodeSqliteDatabase[] = [];

afterAll(() => {
  for (const db of callerDatabases) db.close();
  rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

if (sqlite === undefined) {
  describe('sqlite storage on a runtime without node:sqlite', () => {
    it('refuses `driver: node:sqlite`, naming the runtime and the driver to choose instead', async () => {
      const storage = createSqliteStorage({ path: join(dir, 'refused.db'), driver: 'node:sqlite' });
      const error: unknown = await storage.get('any-key').then(
        () => assert.fail('expected a refusal'),
        (reason: unknown) => reason,
      );
      assert.ok(error instanceof GuardError);
      expect(error.code).toBe('sqlite_driver_unavailable');
      expect(error.message).toContain(`Node.js ${process.versions.node}`);
      expect(error.message).toContain('`npm install better-sqlite3`');
      await storage.close();
    });
  });
} else {
  const { DatabaseSync } = sqlite;

  // Each open() is a new node:sqlite connection to one file, as separate processes would have.
  describeStorageConformance({
    name: 'sqlite through node:sqlite',
    open: () => createSqliteStorage({ path: join(dir, 'opened-by-driver.db'), driver: 'node:sqlite' }),
    api: { describe, it },
    identity: true,
  });

  // The caller's own DatabaseSync connections (rollback journal, custom prefix, relaxed sync).
  describeStorageConformance({
    name: 'sqlite with caller node:sqlite databases',
    open: () => {
      const db = new DatabaseSync(join(dir, 'opened-by-caller.db'));
      callerDatabases.push(db);
      return createSqliteStorage({ database: db }, { tablePrefix: 'custom_', synchronous: 'NORMAL' });
    },
    api: { describe, it },
    identity: true,
    concurrency: [2, 8],
  });

  describe('sqlite storage through node:sqlite', () => {
    it('is the default driver where the runtime has it, in WAL mode with synchronous FULL', async () => {
      expect((await loadSqliteDriver(undefined)).driver).toBe('node:sqlite');
      const file = join(dir, 'default.db');
      const storage = createSqliteStorage({ path: file });
      await storage.create(makeTestRecord());
      const raw = new DatabaseSync(file);
      const journal = raw.prepare('PRAGMA journal_mode').get() as { journal_mode: string };
      expect(journal.journal_mode).toBe('wal');
      raw.close();
      await storage.close();
      const db = new DatabaseSync(join(dir, 'caller-pragmas.db'));
      await createSqliteStorage({ database: db }).ensureSchema();
      expect({ ...(db.prepare('PRAGMA synchronous').get() as object) }).toEqual({ synchronous: 2 });
      expect({ ...(db.prepare('PRAGMA busy_timeout').get() as object) }).toEqual({ timeout: 5000 });
      db.close();
    });

    it('never closes a caller database, and refuses operations once the caller closed it', async () => {
      const db = new DatabaseSync(join(dir, 'caller-owned.db'));
      const storage = createSqliteStorage({ database: db });
      const record = makeTestRecord();
      await storage.create(record);
      await storage.close();
      expect({ ...(db.prepare('SELECT count(*) AS n FROM hyphae_transitions').get() as object) }).toEqual({ n: 1 });
      const again = createSqliteStorage({ database: db });
      expect((await again.get(record.key))?.key).toBe(record.key);
      db.close();
      await assert.rejects(again.get(record.key), { code: 'ledger_storage_unavailable' });
      await again.close();
    });

    it('reports a write lock held past the busy timeout as unavailable with the SQLite code, and recovers', async () => {
      const file = join(dir, 'busy.db');
      const storage = createSqliteStorage({ path: file, driver: 'node:sqlite' }, { busyTimeoutMs: 50 });
      await storage.ensureSchema();
      const holder = new DatabaseSync(file);
      holder.exec('BEGIN IMMEDIATE');
      const error: unknown = await storage.create(makeTestRecord()).catch((reason: unknown) => reason);
      expect(error).toMatchObject({ code: 'ledger_storage_unavailable', operation: 'create' });
      expect((error as { cause?: { errcode?: number } }).cause?.errcode).toBe(5);
      holder.exec('ROLLBACK');
      holder.close();
      expect((await storage.create(makeTestRecord())).created).toBe(true);
      await storage.close();
    });
  });
}
