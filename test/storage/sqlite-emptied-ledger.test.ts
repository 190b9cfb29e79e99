import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createLedger, LedgerStorageCorruptError, ReceiptSinkCorruptError } from '../../src/index.js';
import { createSqliteReceiptSink, createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { SQLITE_DRIVERS } from './sqlite-drivers.js';

const dir = mkdtempSync(join(tmpdir(), 'hyphae-sqlite-emptied-'));
const freshFile = (): string => join(dir, `ledger-${randomUUID()}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));

async function rejectsCorrupt(promise: Promise<unknown>, pattern: RegExp): Promise<void> {
  const error: unknown = await promise.then(
    () => assert.fail('expected a LedgerStorageCorruptError'),
    (reason: unknown) => reason,
  );
  assert.ok(error instanceof LedgerStorageCorruptError, `got ${String(error)}`);
  expect(error.message).toMatch(pattern);
}

describe.each(SQLITE_DRIVERS)('an existing SQLite ledger through %s', (driver) => {
  it('emptied to 0 bytes, is refused instead of opened as a new ledger whose calls would run again', async () => {
    const file = freshFile();
    const ledger = createLedger({
      storage: createSqliteStorage({ path: file, driver }),
      agentId: 'a',
      policyVersion: '1',
    });
    let runs = 0;
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async () => ++runs);
    expect(await pay({ amount: 1 }, { toolCallId: 'call-1' })).toBe(1);
    await ledger.close();
    truncateSync(file, 0);

    const reopened = createLedger({
      storage: createSqliteStorage({ path: file, driver }),
      agentId: 'a',
      policyVersion: '1',
    });
    const again = reopened.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async () => ++runs);
    await rejectsCorrupt(again({ amount: 1 }, { toolCallId: 'call-1' }), /is empty \(0 bytes\)/);
    expect(runs).toBe(1);
    expect(statSync(file).size).toBe(0);
    await reopened.close();
    await assert.rejects(createSqliteReceiptSink({ path: file, driver }).last(), (error: unknown) => {
      assert.ok(error instanceof ReceiptSinkCorruptError);
      expect(error.message).toMatch(/cannot be trusted: the file is empty \(0 bytes\)/);
      return true;
    });
  });

  it('with `create: false`, opens the ledger that exists and refuses a missing file without creating it', async () => {
    const file = freshFile();
    const record = makeTestRecord();
    const first = createSqliteStorage({ path: file, driver });
    await first.create(record);
    await first.close();
    const existing = createSqliteStorage({ path: file, driver }, { create: false });
    expect(await existing.get(record.key)).toEqual(record);
    await existing.close();

    const missing = freshFile();
    await rejectsCorrupt(createSqliteStorage({ path: missing, driver }, { create: false }).get('k'), /does not exist/);
    expect(existsSync(missing)).toBe(false);
  });

  it('with `create: false`, refuses a database that holds no ledger schema, and writes nothing to it', async () => {
    const file = freshFile();
    const other = new Database(file);
    other.exec('CREATE TABLE app_orders (id INTEGER PRIMARY KEY)');
    other.close();
    await rejectsCorrupt(
      createSqliteStorage({ path: file, driver }, { create: false }).ensureSchema(),
      /holds no ledger \(no `schema_version` row in `hyphae_meta`\)/,
    );
    const raw = new Database(file);
    expect(raw.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all()).toEqual([{ name: 'app_orders' }]);
    raw.close();
  });

  it('writes a ledger id at creation that survives reopening and differs between ledgers', async () => {
    const [a, b] = [freshFile(), freshFile()];
    const first = createSqliteStorage({ path: a, driver });
    const id = await first.ledgerId();
    await first.close();
    const again = createSqliteStorage({ path: a, driver });
    const other = createSqliteStorage({ path: b, driver });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await again.ledgerId()).toBe(id);
    expect(await other.ledgerId()).not.toBe(id);
    await Promise.all([again.close(), other.close()]);
  });

  it('creates a new file whole: its directory holds only the database, never a 0-byte file or a leftover', async () => {
    const sub = join(dir, `whole-${randomUUID()}`);
    const file = join(sub, 'ledger.db');
    const stores = Array.from({ length: 6 }, () => createSqliteStorage({ path: file, driver }));
    await Promise.all(stores.map((store) => store.ensureSchema()));
    const ids = await Promise.all(stores.map((store) => store.ledgerId()));
    expect(new Set(ids).size).toBe(1);
    await Promise.all(stores.map((store) => store.close()));
    expect(readdirSync(sub)).toEqual(['ledger.db']);
    expect(statSync(file).size).toBeGreaterThan(0);
  });

  it('opens a shared application database at a path, adding its tables and an id there', async () => {
    const file = freshFile();
    writeFileSync(file, '');
    await rejectsCorrupt(createSqliteStorage({ path: file, driver }).ensureSchema(), /is empty/);
    rmSync(file);
    const app = new Database(file);
    app.exec('CREATE TABLE app_orders (id INTEGER PRIMARY KEY)');
    app.close();
    const storage = createSqliteStorage({ path: file, driver });
    expect(await storage.ledgerId()).toMatch(/^[0-9a-f-]{36}$/);
    await storage.close();
  });
});
