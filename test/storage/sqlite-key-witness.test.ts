import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createLedger, LedgerStorageCorruptError } from '../../src/index.js';
import { encodeRecord } from '../../src/storage/record-codec.js';
import { nodeSqliteModule } from '../../src/storage/sqlite/load-node-sqlite.js';
import { insertParams } from '../../src/storage/sqlite/transition-rows.js';
import { createSqliteStorage, type SqliteDriverName } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { applyDamage, checks, locateIndexDamage } from '../helpers/sqlite-damage.js';
import { SQLITE_DRIVERS } from './sqlite-drivers.js';

const dir = mkdtempSync(join(tmpdir(), 'hyphae-sqlite-key-witness-'));
afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));

const WITNESS = 'hyphae_transitions_key_witness_idx';
const COUNT_ROWS = 'SELECT count(*) AS n FROM hyphae_transitions';

/** A connection of `driver`'s own SQLite (two SQLite libraries must not share a file in one process). */
function rawConnection(file: string, driver: SqliteDriverName): { exec(sql: string): void; close(): void } {
  const sqlite = nodeSqliteModule();
  if (driver === 'node:sqlite' && sqlite !== undefined) return new sqlite.DatabaseSync(file);
  return new Database(file);
}

describe.each(SQLITE_DRIVERS)('a SQLite key index damaged after the store opened, through %s', (driver) => {
  it('fails closed on a redispatched call without a tool call id, running it 0 more times', async () => {
    const file = join(dir, `ledger-${randomUUID()}.db`);
    const open = () => createSqliteStorage({ path: file, driver });
    const spec = { name: 'pay', sideEffectClass: 'non_idempotent_mutate' } as const;
    const effects: string[] = [];
    const first = createLedger({ storage: open(), agentId: 'a', policyVersion: '1' });
    await first.tool(spec, async ({ id }: { id: string }) => effects.push(id))({ id: 'c' });
    const [recorded] = (await first.list({ tool: 'pay' })).records;
    assert.ok(recorded !== undefined);
    expect(recorded.ticketKey).toBeNull();
    await first.close();
    // Another application's table in the same file, written to later.
    const app = new Database(file);
    app.exec('CREATE TABLE app_events (at INTEGER NOT NULL)');
    app.close();
    const damage = locateIndexDamage(file, 'key', recorded.key);

    // The store opens, and its index check passes: the file is sound at this point.
    const storage = open();
    await storage.ensureSchema();
    const second = createLedger({ storage, agentId: 'a', policyVersion: '1' });
    // Then the key's entry is damaged on disk, and another connection commits to the file, so the
    // store's connection drops the pages it had cached and reads the damaged one.
    applyDamage(file, damage);
    const other = rawConnection(file, driver);
    other.exec('INSERT INTO app_events (at) VALUES (1)');
    other.close();

    const error: unknown = await second
      .tool(spec, async ({ id }: { id: string }) => effects.push(id))({ id: 'c' })
      .catch((reason: unknown) => reason);
    await second.close();

    assert.ok(error instanceof LedgerStorageCorruptError, String(error));
    expect(error.code).toBe('ledger_storage_corrupt');
    expect(error.message).toContain('the second index of the key holds a record the key index lookup missed');
    expect(effects).toEqual(['c']);
    // The damage was real and of the kind `quick_check` passes: the key index alone misses the record.
    expect(checks(file)).toMatchObject({ quick: 'ok', integrity: expect.stringMatching(/missing from index/) });
    const db = new Database(file, { readonly: true });
    const lookup = (index: string) =>
      db.prepare(`SELECT key FROM hyphae_transitions INDEXED BY "${index}" WHERE key = ?`).get(recorded.key);
    expect(lookup('sqlite_autoindex_hyphae_transitions_1')).toBeUndefined();
    expect(lookup(WITNESS)).toEqual({ key: recorded.key });
    expect(db.prepare(COUNT_ROWS).get()).toEqual({ n: 1 });
    db.close();
  });
});

describe('the second index of the key', () => {
  it('is added to a ledger written without it, and finds the records written before', async () => {
    const file = join(dir, `older-${randomUUID()}.db`);
    const record = makeTestRecord();
    const storage = createSqliteStorage({ path: file, driver: 'better-sqlite3' });
    await storage.create(record);
    await storage.close();
    const db = new Database(file);
    db.exec(`DROP INDEX "${WITNESS}"`);
    db.close();

    const reopened = createSqliteStorage({ path: file, driver: 'better-sqlite3' }, { create: false });
    const again = await reopened.create({ ...record, owner: 'second' });
    await reopened.close();

    expect(again.created).toBe(false);
    const after = new Database(file, { readonly: true });
    expect(after.prepare(`SELECT sql FROM sqlite_master WHERE name = ?`).get(WITNESS)).toEqual({
      sql: `CREATE INDEX "${WITNESS}" ON "hyphae_transitions" (key)`,
    });
    expect(after.prepare(`SELECT key FROM hyphae_transitions INDEXED BY "${WITNESS}"`).all()).toEqual([
      { key: record.key },
    ]);
    after.close();
  });

  it('is kept by a writer that does not know it, so the open check passes after such writes', async () => {
    const file = join(dir, `mixed-${randomUUID()}.db`);
    const storage = createSqliteStorage({ path: file, driver: 'better-sqlite3' });
    await storage.create(makeTestRecord());
    await storage.close();
    // An earlier version of the code inserts with the statement it always used.
    const db = new Database(file);
    const record = makeTestRecord({ ticket: null, ticketKey: null });
    db.prepare(
      'INSERT INTO hyphae_transitions (key, ticket_key, tool, kind, outcome, updated_at, version, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    ).run(...insertParams(record, encodeRecord(record)));
    db.close();

    const reopened = createSqliteStorage({ path: file, driver: 'better-sqlite3' });
    await expect(reopened.ensureSchema()).resolves.toBeUndefined();
    await reopened.close();
  });
});
