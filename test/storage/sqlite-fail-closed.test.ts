import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { LedgerStorageCorruptError } from '../../src/errors.js';
import { createSqliteStorage, type SqliteDriverName, type SqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { SQLITE_DRIVERS } from './sqlite-drivers.js';

const dir = mkdtempSync(join(tmpdir(), 'hyphae-sqlite-fail-closed-'));
const freshFile = (): string => join(dir, `ledger-${randomUUID()}.db`);

afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));

/** Assert `promise` rejects with a corrupt-storage error whose message names `location`. */
async function rejectsCorrupt(promise: Promise<unknown>, location: string): Promise<LedgerStorageCorruptError> {
  const error: unknown = await promise.then(
    () => assert.fail('expected a LedgerStorageCorruptError'),
    (reason: unknown) => reason,
  );
  assert.ok(error instanceof LedgerStorageCorruptError, `got ${String(error)}`);
  expect(error.code).toBe('ledger_storage_corrupt');
  expect(error.message).toContain(`\`${location}`);
  return error;
}

/** Write through a raw connection (simulating damage done outside hyphae). */
function tamper(file: string, sql: string, ...params: unknown[]): void {
  const db = new Database(file);
  try {
    db.prepare(sql).run(...params);
  } finally {
    db.close();
  }
}

async function storeWith(
  driver: SqliteDriverName,
  file: string,
  ...records: ReturnType<typeof makeTestRecord>[]
): Promise<void> {
  const storage = createSqliteStorage({ path: file, driver });
  await storage.ensureSchema();
  for (const record of records) await storage.create(record);
  await storage.close();
}

describe.each(SQLITE_DRIVERS)('sqlite storage through %s fails closed', (driver) => {
  it('refuses a file that is not a SQLite database, naming it, and leaves it untouched', async () => {
    const file = freshFile();
    const garbage = 'this is not a ledger '.repeat(200);
    writeFileSync(file, garbage);
    const storage = createSqliteStorage({ path: file, driver });
    const error = await rejectsCorrupt(storage.get('any-key'), file);
    expect(error.location).toBe(file);
    expect(error.message).toContain('not a SQLite database');
    await rejectsCorrupt(storage.ensureSchema(), file);
    await rejectsCorrupt(storage.list(), file);
    expect(readFileSync(file, 'utf8')).toBe(garbage);
    await storage.close();
  });

  it('refuses a schema version newer than it knows', async () => {
    const file = freshFile();
    await storeWith(driver, file, makeTestRecord());
    tamper(file, `UPDATE hyphae_meta SET value = '2' WHERE name = 'schema_version'`);
    const storage = createSqliteStorage({ path: file, driver });
    const error = await rejectsCorrupt(storage.create(makeTestRecord()), file);
    expect(error.message).toContain('schema version `2` is newer');
    await storage.close();
  });

  it('refuses a schema version that is not a number', async () => {
    const file = freshFile();
    await storeWith(driver, file);
    tamper(file, `UPDATE hyphae_meta SET value = 'banana' WHERE name = 'schema_version'`);
    const error = await rejectsCorrupt(createSqliteStorage({ path: file, driver }).ensureSchema(), file);
    expect(error.message).toContain('`banana`');
  });

  it('refuses a versioned store whose transitions table is gone instead of recreating it empty', async () => {
    const file = freshFile();
    await storeWith(driver, file, makeTestRecord());
    tamper(file, 'DROP TABLE hyphae_transitions');
    const error = await rejectsCorrupt(createSqliteStorage({ path: file, driver }).get('any-key'), file);
    expect(error.message).toContain('`hyphae_transitions` is missing');
  });

  it('refuses a stored record that does not parse, naming the file and the key', async () => {
    const file = freshFile();
    const record = makeTestRecord();
    await storeWith(driver, file, record);
    tamper(file, 'UPDATE hyphae_transitions SET doc = ? WHERE key = ?', '{"key": "trunc', record.key);
    const storage = createSqliteStorage({ path: file, driver });
    const error = await rejectsCorrupt(storage.get(record.key), `${file}#${record.key}`);
    expect(error.location).toBe(`${file}#${record.key}`);
    await rejectsCorrupt(storage.findByTicket(record.ticketKey ?? ''), `${file}#${record.key}`);
    await rejectsCorrupt(storage.list({ tool: record.tool }), `${file}#${record.key}`);
    // A damaged record is never taken for an absent one: a create on its key does not overwrite it.
    await rejectsCorrupt(storage.create({ ...record, owner: 'someone-else' }), `${file}#${record.key}`);
    await storage.close();
  });

  it('refuses a record whose document disagrees with its row', async () => {
    const file = freshFile();
    const record = makeTestRecord();
    await storeWith(driver, file, record);
    tamper(file, 'UPDATE hyphae_transitions SET version = 7 WHERE key = ?', record.key);
    const storage: SqliteStorage = createSqliteStorage({ path: file, driver });
    const error = await rejectsCorrupt(storage.get(record.key), `${file}#${record.key}`);
    expect(error.message).toContain('does not match its row');
    await storage.close();
  });
});
