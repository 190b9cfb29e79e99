/**
 * PostgreSQL fails closed where its records were lost or edited: a dropped transitions table whose
 * version row is kept, a row whose key or version column disagrees with its document, a store
 * opened with `create: false` that holds no ledger. Each test works on tables of its own prefix.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerStorageCorruptError } from '../../src/errors.js';
import { sideEffect } from '../../src/ledger/boundary-markers.js';
import { createLedger } from '../../src/ledger/create-ledger.js';
import { createPostgresStorage, type PostgresStorageSettings } from '../../src/storage/postgres.js';
import { makeTestRecord } from '../../src/testing/storage-conformance.js';
import { integrationSkip, POSTGRES_URL, probePostgres } from '../helpers/integration.js';
import { collectingLogger, rejectionOf } from '../ledger/ledger-helpers.js';

const skip = integrationSkip(await probePostgres());
const runPrefix = `hyphae_fc${randomBytes(4).toString('hex')}_`;
let counter = 0;
let admin: pg.Pool;
const closers: (() => Promise<void>)[] = [];

/** A storage on tables of a fresh prefix, and the quoted name of each of its tables. */
function openFresh(settings: PostgresStorageSettings = {}) {
  counter += 1;
  const tablePrefix = `${runPrefix}${counter}_`;
  const open = (more: PostgresStorageSettings = {}) => {
    const storage = createPostgresStorage({ connectionString: POSTGRES_URL }, { tablePrefix, ...settings, ...more });
    closers.push(() => storage.close());
    return storage;
  };
  return { storage: open(), open, table: (name: string): string => `"public"."${tablePrefix}${name}"` };
}

describe.skipIf(skip)('postgres: fail closed', () => {
  beforeAll(() => {
    admin = new pg.Pool({ connectionString: POSTGRES_URL });
    admin.on('error', () => {});
  });

  afterAll(async () => {
    for (const close of closers.splice(0)) await close().catch(() => undefined);
    const { rows } = await admin.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE tablename LIKE $1`,
      [`${runPrefix}%`],
    );
    for (const { name } of rows) await admin.query(`DROP TABLE IF EXISTS ${name}`);
    await admin.end();
  });

  it('a transitions table dropped with its version row kept is corrupt, for a new storage and a running one', async () => {
    const { storage, open, table } = openFresh();
    await storage.create(makeTestRecord({ key: 'k1' }));
    await admin.query(`DROP TABLE ${table('transitions')}`);

    const running = await rejectionOf(storage.get('k1'));
    const reopened = open();
    const migrating = await rejectionOf(reopened.create(makeTestRecord({ key: 'k2' })));

    expect(running).toBeInstanceOf(LedgerStorageCorruptError);
    expect(migrating).toBeInstanceOf(LedgerStorageCorruptError);
    expect((migrating as Error).message).toMatch(/transitions` is missing while its schema version row is kept/);
    const { rows } = await admin.query('SELECT to_regclass($1) AS found', [table('transitions')]);
    expect(rows).toEqual([{ found: null }]);
  });

  it('a row whose key or version column disagrees with its document fails closed on every read', async () => {
    const { storage, table } = openFresh();
    const record = makeTestRecord({ key: 'k1', ticketKey: 't1', outcome: 'COMPLETED', version: 3 });
    await storage.create(record);
    await storage.create(makeTestRecord({ key: 'k2', version: 1 }));
    await admin.query(`UPDATE ${table('transitions')} SET version = 4 WHERE key = 'k1'`);
    await admin.query(`UPDATE ${table('transitions')} SET key = 'k3' WHERE key = 'k2'`);

    const errors = [
      await rejectionOf(storage.get('k1')),
      await rejectionOf(storage.findByTicket('t1')),
      await rejectionOf(storage.get('k3')),
      await rejectionOf(storage.list()),
      await rejectionOf(storage.create(makeTestRecord({ key: 'k1' }))),
    ];

    for (const error of errors) expect(error).toBeInstanceOf(LedgerStorageCorruptError);
  });

  it('a completed call whose row was edited is refused, not returned and not run again', async () => {
    const { storage, table } = openFresh();
    const ledger = createLedger({ storage, agentId: 'a', policyVersion: '1', logger: collectingLogger() });
    let effects = 0;
    const pay = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async () =>
      sideEffect(async () => {
        effects += 1;
        return 'paid';
      }),
    );
    expect(await pay({}, { toolCallId: 'c1' })).toBe('paid');
    await admin.query(`UPDATE ${table('transitions')} SET version = version + 5`);

    expect(await rejectionOf(pay({}, { toolCallId: 'c1' }))).toBeInstanceOf(LedgerStorageCorruptError);
    expect(effects).toBe(1);
  });

  it('writes one ledger id at initialisation, which `create: false` requires', async () => {
    const { storage, open, table } = openFresh({ create: false });

    const refused = await rejectionOf(storage.create(makeTestRecord({ key: 'k1' })));
    const created = await open({ create: true }).identity();
    const reopened = open();

    expect(refused).toBeInstanceOf(LedgerStorageCorruptError);
    expect((refused as Error).message).toMatch(/holds no ledger.*`create: false`/);
    expect(await reopened.identity()).toEqual(created);
    expect((await reopened.create(makeTestRecord({ key: 'k1' }))).created).toBe(true);
    await admin.query(`DELETE FROM ${table('meta')} WHERE name LIKE 'ledger_%'`);
    const older = await rejectionOf(open().ensureSchema());
    expect((older as Error).message).toMatch(/no ledger id \(written by an older hyphae/);
    await admin.query(`DROP TABLE ${table('transitions')}, ${table('meta')}`);
    expect(await rejectionOf(open().ensureSchema())).toBeInstanceOf(LedgerStorageCorruptError);
  });
});
