import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { InvalidOptionError, LedgerStorageUnavailableError } from '../../src/errors.js';
import { sqliteErrorCode } from '../../src/storage/sqlite/sqlite-error-code.js';
import { createSqliteStorage, type SqliteDatabase } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';

// better-sqlite3 on both sides: a raw connection of the other driver in this process would not see
// the store's locks (test/storage/sqlite-node-driver.test.ts covers node:sqlite).
const driver = 'better-sqlite3';
const dir = mkdtempSync(join(tmpdir(), 'hyphae-sqlite-connection-'));
const freshFile = (): string => join(dir, `ledger-${randomUUID()}.db`);

afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));

describe('sqlite storage connection ownership', () => {
  it('accepts a better-sqlite3 Database as its structural SqliteDatabase', () => {
    const db = new Database(':memory:');
    const structural: SqliteDatabase = db;
    expect(structural.name).toBe(':memory:');
    db.close();
  });

  it('never closes a database the caller passed in', async () => {
    const db = new Database(freshFile());
    const storage = createSqliteStorage({ database: db });
    await storage.create(makeTestRecord());
    await storage.close();
    expect(db.open).toBe(true);
    expect(db.prepare('SELECT count(*) AS n FROM hyphae_transitions').get()).toEqual({ n: 1 });
    await assert.rejects(storage.get('any-key'), LedgerStorageUnavailableError);
    db.close();
  });

  it('closes the database it opened (the last WAL connection checkpoints and removes the log)', async () => {
    const file = freshFile();
    const storage = createSqliteStorage({ path: file, driver });
    await storage.create(makeTestRecord());
    expect(existsSync(`${file}-wal`)).toBe(true);
    await storage.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
  });

  it('rejects operations once the caller closed its database', async () => {
    const db = new Database(freshFile());
    const storage = createSqliteStorage({ database: db });
    await storage.ensureSchema();
    db.close();
    await assert.rejects(storage.get('any-key'), LedgerStorageUnavailableError);
    await storage.close();
  });
});

describe('sqlite storage setup', () => {
  it('creates the parent directory, runs in WAL mode and syncs FULL by default', async () => {
    const file = join(dir, 'nested', 'deeper', 'ledger.db');
    const storage = createSqliteStorage({ path: file, driver });
    expect(storage.location).toBe(file);
    await storage.ensureSchema();
    const raw = new Database(file);
    expect(raw.pragma('journal_mode', { simple: true })).toBe('wal');
    raw.close();
    await storage.close();
    const db = new Database(freshFile());
    await createSqliteStorage({ database: db }).ensureSchema();
    expect(db.pragma('synchronous', { simple: true })).toBe(2);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(5000);
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
    db.close();
  });

  it('applies the relaxed synchronous mode and busy timeout when asked', async () => {
    const db = new Database(freshFile());
    await createSqliteStorage({ database: db }, { synchronous: 'NORMAL', busyTimeoutMs: 250 }).ensureSchema();
    expect(db.pragma('synchronous', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBe(250);
    db.close();
  });

  it('runs ensureSchema idempotently, once per connection and across connections', async () => {
    const file = freshFile();
    const first = createSqliteStorage({ path: file, driver });
    const second = createSqliteStorage({ path: file, driver });
    await Promise.all([first.ensureSchema(), first.ensureSchema(), second.ensureSchema()]);
    await first.ensureSchema();
    const raw = new Database(file);
    // One schema row and one ledger id, however many stores and connections raced to create them.
    expect(raw.prepare('SELECT name, value FROM hyphae_meta ORDER BY name').all()).toEqual([
      { name: 'ledger_created_at', value: expect.stringMatching(/^\d+$/) },
      { name: 'ledger_id', value: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      { name: 'schema_version', value: '1' },
    ]);
    raw.close();
    await Promise.all([first.close(), second.close()]);
  });

  it('isolates two stores in one file by table prefix', async () => {
    const file = freshFile();
    const alpha = createSqliteStorage({ path: file, driver }, { tablePrefix: 'alpha_' });
    const beta = createSqliteStorage({ path: file, driver }, { tablePrefix: 'beta_' });
    const record = makeTestRecord();
    expect((await alpha.create(record)).created).toBe(true);
    expect(await beta.get(record.key)).toBeNull();
    expect(await beta.findByTicket(record.ticketKey ?? '')).toBeNull();
    expect((await beta.create({ ...record, owner: 'beta-owner' })).created).toBe(true);
    expect((await alpha.get(record.key))?.owner).toBe(record.owner);
    expect((await beta.list({ tool: record.tool })).records.map((r) => r.owner)).toEqual(['beta-owner']);
    await Promise.all([alpha.close(), beta.close()]);
  });

  it('refuses unsafe settings up front', () => {
    expect(() => createSqliteStorage({ path: freshFile(), driver }, { tablePrefix: 'x"; DROP TABLE y; --' })).toThrow(
      InvalidOptionError,
    );
    expect(() => createSqliteStorage({ path: freshFile(), driver }, { busyTimeoutMs: -1 })).toThrow(/`busyTimeoutMs`/);
    const bogus = { synchronous: 'OFF' } as unknown as { synchronous: 'FULL' };
    expect(() => createSqliteStorage({ path: freshFile(), driver }, bogus)).toThrow(/`synchronous`/);
  });

  it('refuses an update whose record has another key', async () => {
    const storage = createSqliteStorage({ path: ':memory:', driver });
    const record = makeTestRecord();
    await storage.create(record);
    await assert.rejects(storage.update(record.key, 1, { ...record, key: 'other', version: 2 }), RangeError);
    expect(await storage.get(record.key)).toEqual(record);
    await storage.close();
  });

  it('declares an in-memory database neither durable nor cross-process, and a temp file not durable', async () => {
    // Nothing is opened before the first operation, so a path that does not exist is fine here.
    expect(createSqliteStorage({ path: '/var/lib/hyphae-never-created/ledger.db', driver }).capabilities).toEqual({
      name: 'sqlite',
      crossProcess: true,
      durable: true,
    });
    // A file under the temp directory survives the process but not the next cleaner or reboot.
    expect(createSqliteStorage({ path: freshFile(), driver }).capabilities).toEqual({
      name: 'sqlite',
      crossProcess: true,
      durable: false,
    });
    const memory = createSqliteStorage({ path: ':memory:', driver });
    expect(memory.capabilities).toEqual({ name: 'sqlite', crossProcess: false, durable: false });
    expect(memory.location).toBe(':memory:');
    const db = new Database(':memory:');
    expect(createSqliteStorage({ database: db }).capabilities.durable).toBe(false);
    db.close();
  });
});

describe('sqlite storage under lock contention', () => {
  it('reports a write lock held past the busy timeout as unavailable, reads on, and recovers', async () => {
    const file = freshFile();
    const storage = createSqliteStorage({ path: file, driver }, { busyTimeoutMs: 50 });
    const existing = makeTestRecord();
    await storage.create(existing);
    const holder = new Database(file);
    holder.exec('BEGIN IMMEDIATE');
    const error: unknown = await storage.create(makeTestRecord()).then(
      () => assert.fail('expected the create to fail'),
      (reason: unknown) => reason,
    );
    assert.ok(error instanceof LedgerStorageUnavailableError);
    expect(error.operation).toBe('create');
    expect(sqliteErrorCode(error.cause)).toBe('SQLITE_BUSY');
    await assert.rejects(storage.update(existing.key, 1, { ...existing, version: 2 }), LedgerStorageUnavailableError);
    expect(await storage.get(existing.key)).toEqual(existing);
    holder.exec('ROLLBACK');
    holder.close();
    expect((await storage.create(makeTestRecord())).created).toBe(true);
    expect(await storage.update(existing.key, 1, { ...existing, version: 2 })).toBe(true);
    await storage.close();
  });
});
