/**
 * The PostgreSQL receipt sink on a real server (skipped without one, failing with REQUIRE_INTEGRATION=1).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptSinkCorruptError } from '../../../src/errors.js';
import { createLedger } from '../../../src/index.js';
import { createReceiptWriter, sealReceipt } from '../../../src/ledger/receipts/receipt-writer.js';
import { createHmacVerifier } from '../../../src/ledger/receipts/signers.js';
import { verifyReceipts } from '../../../src/ledger/receipts/verify-receipts.js';
import { createPostgresReceiptSink, createPostgresStorage } from '../../../src/storage/postgres.js';
import type { Receipt } from '../../../src/storage/receipt.js';
import { integrationSkip, POSTGRES_URL, probePostgres } from '../../helpers/integration.js';
import { emailTool } from './ledger-fixture.js';
import { draft, hmacPair } from './receipt-helpers.js';
import { spawnWriters } from './spawn-writers.js';

const skip = integrationSkip(await probePostgres());
const runPrefix = `hyphae_r${randomBytes(4).toString('hex')}_`;
let counter = 0;
const freshPrefix = (): string => `${runPrefix}${++counter}_`;
const keys = hmacPair('k1');
let admin: pg.Pool;

describe.skipIf(skip)('PostgreSQL receipt sink', () => {
  beforeAll(() => {
    admin = new pg.Pool({ connectionString: POSTGRES_URL });
    admin.on('error', () => {});
  });

  afterAll(async () => {
    const { rows } = await admin.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE tablename LIKE $1`,
      [`${runPrefix}%`],
    );
    for (const { name } of rows) await admin.query(`DROP TABLE IF EXISTS ${name}`);
    await admin.end();
  });

  const open = (tablePrefix: string) => createPostgresReceiptSink({ connectionString: POSTGRES_URL }, { tablePrefix });

  it('appends, refuses a duplicate and a stale head, and continues the chain from another pool', async () => {
    const tablePrefix = freshPrefix();
    const first = createReceiptWriter({ sink: open(tablePrefix), signer: keys.signer });
    for (const n of [1, 2, 3]) await first.write(draft(n));
    await first.close();

    const sink = open(tablePrefix);
    const writer = createReceiptWriter({ sink, signer: keys.signer });
    const fourth = await writer.write(draft(4));
    const again = await writer.write(draft(1));
    const stale = await sink.append(sealReceipt(draft(5), { seq: 1, hash: null }, keys.signer));

    expect(fourth).toMatchObject({ status: 'appended', receipt: { seq: 4 } });
    expect(again).toEqual({ status: 'duplicate', receiptId: draft(1).receiptId });
    expect(stale).toMatchObject({ appended: false, conflict: 'head', last: { seq: 4 } });
    expect(await verifyReceipts(sink, { keys: keys.verifier })).toMatchObject({ ok: true, count: 4 });
    await writer.close();
  });

  it('ensureSchema is idempotent when raced, and coexists with the ledger tables under one prefix', async () => {
    const tablePrefix = freshPrefix();
    const sinks = Array.from({ length: 4 }, () => open(tablePrefix));
    await Promise.all(sinks.map((sink) => sink.ensureSchema()));
    const storage = createPostgresStorage({ connectionString: POSTGRES_URL }, { tablePrefix });

    await storage.ensureSchema();

    expect(await storage.list()).toEqual({ records: [], nextCursor: null });
    expect(await sinks[0]?.last()).toBeNull();
    await Promise.all([...sinks.map((sink) => sink.close()), storage.close()]);
  });

  it('fails closed on a row whose document was changed', async () => {
    const tablePrefix = freshPrefix();
    const writer = createReceiptWriter({ sink: open(tablePrefix), signer: keys.signer });
    await writer.write(draft(1));
    await writer.close();
    await admin.query(`UPDATE "${tablePrefix}receipts" SET doc = replace(doc, 'COMPLETED', 'UNKNOWN')`);

    const sink = open(tablePrefix);
    await expect(sink.last()).rejects.toThrow(ReceiptSinkCorruptError);
    await sink.close();
  });

  it('three processes appending at once write one chain', { timeout: 120_000 }, async () => {
    const tablePrefix = freshPrefix();
    const secret = randomBytes(32).toString('base64');
    await open(tablePrefix).ensureSchema();

    const exits = await spawnWriters(3, { kind: 'postgres', location: POSTGRES_URL, tablePrefix, secret, count: 20 });

    for (const exit of exits) expect(exit, exit.stderr).toMatchObject({ code: 0, stdout: 'done\n' });
    const sink = open(tablePrefix);
    const receipts: Receipt[] = [];
    for await (const receipt of sink.readAll()) receipts.push(receipt);
    const verdict = await verifyReceipts(receipts, { keys: createHmacVerifier({ key: secret, keyId: 'k1' }) });
    expect(verdict.ok ? null : verdict.firstBroken).toBeNull();
    expect(verdict).toMatchObject({ ok: true, count: 60 });
    expect(receipts.map((receipt) => receipt.seq)).toEqual(Array.from({ length: 60 }, (_, n) => n + 1));
    await sink.close();
  });

  it('over a pool that cannot hand out clients, concurrent writers still build one chain (compare-and-set)', async () => {
    const tablePrefix = freshPrefix();
    const plain = {
      query: (text: string, values?: readonly unknown[]) => admin.query(text, values as unknown[]),
      end: async () => {},
    };
    const writers = [1, 2, 3].map(() =>
      createReceiptWriter({ sink: createPostgresReceiptSink({ pool: plain }, { tablePrefix }), signer: keys.signer }),
    );

    await Promise.all(Array.from({ length: 30 }, (_, n) => writers[n % 3]?.write(draft(n + 1))));

    const sink = createPostgresReceiptSink({ pool: plain }, { tablePrefix });
    expect(await verifyReceipts(sink, { keys: keys.verifier })).toMatchObject({ ok: true, count: 30 });
    await Promise.all(writers.map((writer) => writer.close()));
  });

  it('a ledger on PostgreSQL writes its receipts to the same database and sweeps them', async () => {
    const tablePrefix = freshPrefix();
    const storage = createPostgresStorage({ connectionString: POSTGRES_URL }, { tablePrefix });
    const sink = open(tablePrefix);
    const ledger = createLedger({
      storage,
      agentId: 'agent',
      policyVersion: 'p1',
      receipts: { sink, signer: keys.signer },
    });
    const { plan, send } = emailTool(ledger);
    plan.push('ok', 'inside');

    await send({ to: 'a@x' }, { toolCallId: 'c1' });
    await expect(send({ to: 'b@x' }, { toolCallId: 'c2' })).rejects.toThrow('SMTP timeout');

    expect(await ledger.sweepReceipts()).toMatchObject({ scanned: 2, owed: 0 });
    const result = await verifyReceipts(sink, { keys: keys.verifier });
    expect(result).toMatchObject({ ok: true, count: 2 });
    await ledger.close();
  });
});
