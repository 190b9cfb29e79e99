import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { ReceiptSinkCorruptError } from '../../../src/errors.js';
import { createReceiptWriter, sealReceipt } from '../../../src/ledger/receipts/receipt-writer.js';
import { createHmacVerifier } from '../../../src/ledger/receipts/signers.js';
import { verifyReceipts } from '../../../src/ledger/receipts/verify-receipts.js';
import type { Receipt } from '../../../src/storage/receipt.js';
import { createSqliteReceiptSink, createSqliteStorage } from '../../../src/storage/sqlite.js';
import { makeTestRecord } from '../../../src/testing/storage-conformance.js';
import { draft, hmacPair, scratchDir } from './receipt-helpers.js';
import { spawnWriters } from './spawn-writers.js';

const scratch = scratchDir();
afterAll(() => scratch.remove());
const keys = hmacPair('k1');
let files = 0;
const freshFile = (): string => scratch.file(`sink-${++files}.db`);

describe('SQLite receipt sink', () => {
  it('appends, gives the head, reads in order, and continues the chain after a reopen', async () => {
    const path = freshFile();
    const first = createReceiptWriter({ sink: createSqliteReceiptSink({ path }), signer: keys.signer });
    for (const n of [1, 2, 3]) await first.write(draft(n));
    await first.close();

    const sink = createSqliteReceiptSink({ path });
    const writer = createReceiptWriter({ sink, signer: keys.signer });
    const fourth = await writer.write(draft(4));
    const again = await writer.write(draft(2));

    expect(fourth).toMatchObject({ status: 'appended', receipt: { seq: 4 } });
    expect(again).toEqual({ status: 'duplicate', receiptId: draft(2).receiptId });
    expect((await sink.last())?.seq).toBe(4);
    expect(await verifyReceipts(sink, { keys: keys.verifier })).toMatchObject({ ok: true, count: 4 });
    await writer.close();
  });

  it('refuses an append that does not extend the head, returning the head', async () => {
    const sink = createSqliteReceiptSink({ path: freshFile() });
    const one = sealReceipt(draft(1), { seq: 0, hash: null }, keys.signer);
    await sink.append(one);

    const stale = await sink.append(sealReceipt(draft(2), { seq: 0, hash: null }, keys.signer));
    const gap = await sink.append(sealReceipt(draft(3), { seq: 5, hash: 'f'.repeat(64) }, keys.signer));

    expect(stale).toEqual({ appended: false, conflict: 'head', last: one });
    expect(gap).toMatchObject({ appended: false, conflict: 'head' });
    await sink.close();
    await sink.close();
  });

  it('shares a database file with the ledger storage, whichever creates its tables first', async () => {
    const path = freshFile();
    const sink = createSqliteReceiptSink({ path });
    await sink.ensureSchema();
    const storage = createSqliteStorage({ path });

    await storage.create(makeTestRecord({ key: 'k' }));
    await createReceiptWriter({ sink, signer: keys.signer }).write(draft(1));

    expect(await storage.get('k')).not.toBeNull();
    expect((await sink.last())?.seq).toBe(1);
    await storage.close();
    await sink.close();
  });

  it('fails closed on a row whose document was changed, and on a newer schema', async () => {
    const path = freshFile();
    const writer = createReceiptWriter({ sink: createSqliteReceiptSink({ path }), signer: keys.signer });
    await writer.write(draft(1));
    await writer.close();
    const db = new Database(path);
    const doc = (db.prepare('SELECT doc FROM hyphae_receipts WHERE seq = 1').get() as { doc: string }).doc;
    db.prepare('UPDATE hyphae_receipts SET doc = ? WHERE seq = 1').run(doc.replace('COMPLETED', 'UNKNOWN'));

    await expect(createSqliteReceiptSink({ path }).last()).rejects.toThrow(ReceiptSinkCorruptError);
    db.prepare(`UPDATE hyphae_meta SET value = '9' WHERE name = 'receipts_schema_version'`).run();
    await expect(createSqliteReceiptSink({ path }).last()).rejects.toThrow('newer than this hyphae reads');
    db.close();
  });

  it('never closes a database the caller passed', async () => {
    const db = new Database(freshFile());
    const sink = createSqliteReceiptSink({ database: db }, { tablePrefix: 'custom_' });
    await createReceiptWriter({ sink, signer: keys.signer }).write(draft(1));

    await sink.close();

    expect(db.open).toBe(true);
    expect(db.prepare('SELECT count(*) AS n FROM custom_receipts').get()).toEqual({ n: 1 });
    db.close();
  });

  it('several writers in one process interleave without forking the chain', async () => {
    const path = freshFile();
    const writers = [1, 2, 3].map(() =>
      createReceiptWriter({ sink: createSqliteReceiptSink({ path }), signer: keys.signer }),
    );

    await Promise.all(Array.from({ length: 45 }, (_, n) => writers[n % 3]?.write(draft(n + 1))));

    const sink = createSqliteReceiptSink({ path });
    const result = await verifyReceipts(sink, { keys: keys.verifier });
    expect(result).toMatchObject({ ok: true, count: 45 });
    await Promise.all([...writers.map((writer) => writer.close()), sink.close()]);
  });

  it('three processes appending at once write one chain', { timeout: 120_000 }, async () => {
    const path = freshFile();
    const secret = randomBytes(32).toString('base64');

    const exits = await spawnWriters(3, { kind: 'sqlite', location: path, secret, count: 20 });

    for (const exit of exits) expect(exit, exit.stderr).toMatchObject({ code: 0, stdout: 'done\n' });
    const sink = createSqliteReceiptSink({ path });
    const receipts: Receipt[] = [];
    for await (const receipt of sink.readAll()) receipts.push(receipt);
    expect(await verifyReceipts(receipts, { keys: createHmacVerifier({ key: secret, keyId: 'k1' }) })).toMatchObject({
      ok: true,
      count: 60,
    });
    expect(new Set(receipts.map((receipt) => receipt.agentId)).size).toBe(3);
    await sink.close();
  });
});
