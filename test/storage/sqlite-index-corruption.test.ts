import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createLedger, LedgerStorageCorruptError } from '../../src/index.js';
import { createSqliteStorage, type SqliteDatabase, type SqliteStatement } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { checks, damageKeyIndex } from '../helpers/sqlite-damage.js';
import { SQLITE_DRIVERS } from './sqlite-drivers.js';

const dir = mkdtempSync(join(tmpdir(), 'hyphae-sqlite-index-'));
const freshFile = (): string => join(dir, `ledger-${randomUUID()}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 }));

describe.each(SQLITE_DRIVERS)('a SQLite ledger with a damaged index, through %s', (driver) => {
  it('refuses to open a ledger whose key entries are hidden, running none of three completed calls again', async () => {
    const file = freshFile();
    const open = () =>
      createLedger({ storage: createSqliteStorage({ path: file, driver }), agentId: 'a', policyVersion: '1' });
    const effects: string[] = [];
    const spec = { name: 'pay', sideEffectClass: 'non_idempotent_mutate' } as const;
    const first = open();
    const pay = first.tool(spec, async ({ id }: { id: string }) => effects.push(id));
    for (const id of ['1', '2', '3']) await pay({ id }, { toolCallId: `call-${id}` });
    const keys = (await first.list({ tool: 'pay' })).records.map((record) => record.key);
    await first.close();
    for (const key of keys) damageKeyIndex(file, key, 'key');
    expect(checks(file).quick).toBe('ok');
    expect(checks(file).integrity).toMatch(/missing from index sqlite_autoindex_hyphae_transitions_1/);

    const second = open();
    const again = second.tool(spec, async ({ id }: { id: string }) => effects.push(id));
    for (const id of ['1', '2', '3']) {
      const error: unknown = await again({ id }, { toolCallId: `call-${id}` }).catch((reason: unknown) => reason);
      assert.ok(error instanceof LedgerStorageCorruptError, `call ${id}: ${String(error)}`);
      expect(error.message).toContain(
        '3 record(s) of `hyphae_transitions` cannot be found through the key or ticket index',
      );
      expect(error.message).toContain('`hyphae doctor --deep`');
    }
    expect(effects).toEqual(['1', '2', '3']);
    await second.close();
  });

  it('refuses to open a ledger whose key entry points at another record', async () => {
    const file = freshFile();
    const storage = createSqliteStorage({ path: file, driver });
    const [b, a] = [makeTestRecord(), makeTestRecord()];
    await storage.create(makeTestRecord());
    await storage.create(b);
    await storage.create(a);
    await storage.close();
    // Rows 2 and 3 store their rowid in one byte (rowid 1 takes none); point row 3's entry at row 2.
    damageKeyIndex(file, a.key, { rowid: 2 });
    expect(checks(file).quick).toBe('ok');

    const reopened = createSqliteStorage({ path: file, driver });
    await assert.rejects(reopened.get(b.key), /1 record\(s\) of `hyphae_transitions` cannot be found/);
    await assert.rejects(reopened.create({ ...a, owner: 'someone-else' }), LedgerStorageCorruptError);
    await reopened.close();
  });
});

/** The caller's database, with the lookups matching `blind` seeing nothing (a damaged index, injected). */
function withBlindLookups(db: Database.Database, blind: RegExp): SqliteDatabase {
  const none: SqliteStatement = { run: () => ({ changes: 0 }), get: () => undefined, all: () => [] };
  return {
    name: db.name,
    get open() {
      return db.open;
    },
    get inTransaction() {
      return db.inTransaction;
    },
    prepare: (source) => (blind.test(source) ? none : db.prepare(source)),
    exec: (source) => db.exec(source),
    pragma: (source) => db.pragma(source),
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
}

// Damage that arrives after the store opened (and checked the indexes) is met on the create path.
describe.each([
  [
    'both lookups miss',
    /^SELECT .* WHERE (key|ticket_key) = \?$/,
    'the insert hit a unique key or ticket that neither lookup found',
  ],
  ['only the key lookup misses', /^SELECT .* WHERE key = \?$/, 'the ticket index holds a record the key lookup missed'],
])('a SQLite create over a record its lookups cannot see: %s', (_, blind, reason) => {
  it('fails closed instead of reporting a created or an absent record', async () => {
    const db = new Database(join(dir, `blind-${randomUUID()}.db`));
    const record = makeTestRecord();
    await createSqliteStorage({ database: db }).create(record);
    const storage = createSqliteStorage({ database: withBlindLookups(db, blind) });
    const error: unknown = await storage.create({ ...record, owner: 'second' }).catch((cause: unknown) => cause);
    assert.ok(error instanceof LedgerStorageCorruptError, String(error));
    expect(error.message).toContain(reason);
    expect(db.prepare('SELECT count(*) AS n FROM hyphae_transitions').get()).toEqual({ n: 1 });
    db.close();
  });
});
