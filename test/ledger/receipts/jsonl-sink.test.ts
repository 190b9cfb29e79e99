import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { afterAll, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../../src/core/canonical-json.js';
import { ReceiptSinkCorruptError, ReceiptSinkUnavailableError } from '../../../src/errors.js';
import { createReceiptWriter } from '../../../src/ledger/receipts/receipt-writer.js';
import { verifyReceipts } from '../../../src/ledger/receipts/verify-receipts.js';
import { createJsonlReceiptSink } from '../../../src/storage/jsonl/jsonl-sink.js';
import { type Receipt, receiptHash } from '../../../src/storage/receipt.js';
import { buildChain, draft, hmacPair, scratchDir, toJsonl } from './receipt-helpers.js';
import { spawnWriters } from './spawn-writers.js';

const scratch = scratchDir();
afterAll(() => scratch.remove());
const keys = hmacPair('k1');
let files = 0;
const freshFile = (): string => scratch.file(`receipts-${++files}.jsonl`);

async function writeDrafts(path: string, numbers: readonly number[]) {
  const sink = createJsonlReceiptSink({ path });
  const writer = createReceiptWriter({ sink, signer: keys.signer });
  const results = [];
  for (const n of numbers) results.push(await writer.write(draft(n)));
  await writer.close();
  return results;
}

describe('JSONL receipt sink', () => {
  it('appends one canonical JSON line per receipt, and the file verifies', async () => {
    const path = freshFile();

    await writeDrafts(path, [1, 2, 3]);

    const lines = readFileSync(path, 'utf8').split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[3]).toBe('');
    const first = JSON.parse(lines[0] as string) as Receipt;
    expect(lines[0]).toBe(canonicalJson(first));
    expect(first).toMatchObject({ seq: 1, prev: null, keyId: 'k1', schema: 'hyphae.receipt/v1' });
    expect(await verifyReceipts(path, { keys: keys.verifier })).toMatchObject({ ok: true, count: 3 });
  });

  it('survives a reopen and continues the chain from the last line', async () => {
    const path = freshFile();
    await writeDrafts(path, [1, 2, 3]);

    const [fourth] = await writeDrafts(path, [4, 5]);

    const receipts = readFileSync(path, 'utf8')
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as Receipt);
    expect(receipts.map((receipt) => receipt.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(fourth).toMatchObject({
      status: 'appended',
      receipt: { seq: 4, prev: receiptHash(receipts[2] as Receipt) },
    });
    expect(await verifyReceipts(path, { keys: keys.verifier })).toMatchObject({ ok: true, count: 5 });
  });

  it('refuses a receipt id already in the file, also after a reopen', async () => {
    const path = freshFile();
    await writeDrafts(path, [1, 2]);

    const [again] = await writeDrafts(path, [2]);

    expect(again).toEqual({ status: 'duplicate', receiptId: draft(2).receiptId });
    expect(readFileSync(path, 'utf8').trimEnd().split('\n')).toHaveLength(2);
  });

  it('gives the head with `last()` and every receipt in order with `readAll()`', async () => {
    const path = freshFile();
    await writeDrafts(path, [1, 2, 3]);
    const sink = createJsonlReceiptSink({ path });

    const last = await sink.last();
    const all: Receipt[] = [];
    for await (const receipt of sink.readAll()) all.push(receipt);
    await sink.close();

    expect(last?.seq).toBe(3);
    expect(all.map((receipt) => receipt.seq)).toEqual([1, 2, 3]);
  });

  it('an empty or missing file is an empty chain', async () => {
    const sink = createJsonlReceiptSink({ path: scratch.file('missing/dir/receipts.jsonl') });

    expect(await sink.last()).toBeNull();
    await sink.close();
  });
});

describe('JSONL receipt sink, fail closed', () => {
  it('refuses a file whose last line is torn, and appends nothing to it', async () => {
    const path = freshFile();
    const text = toJsonl(await buildChain(keys.signer, 3));
    writeFileSync(path, text.slice(0, -25));
    const sink = createJsonlReceiptSink({ path });
    const writer = createReceiptWriter({ sink, signer: keys.signer });

    await expect(sink.open()).rejects.toThrow(ReceiptSinkCorruptError);
    await expect(writer.write(draft(9))).rejects.toThrow(/:3` cannot be trusted: the last line is incomplete/);
    expect(readFileSync(path, 'utf8')).toBe(text.slice(0, -25));
    await writer.close();
  });

  it('refuses a file with an unparseable line or a broken link', async () => {
    const chain = await buildChain(keys.signer, 3);
    const garbled = freshFile();
    const relinked = freshFile();
    writeFileSync(garbled, `${JSON.stringify(chain[0])}\nnot json\n${JSON.stringify(chain[2])}\n`);
    writeFileSync(relinked, toJsonl([chain[0], chain[2]]));

    await expect(createJsonlReceiptSink({ path: garbled }).open()).rejects.toThrow('the line is not JSON');
    await expect(createJsonlReceiptSink({ path: relinked }).open()).rejects.toThrow(
      'receipt seq 3 does not follow seq 1',
    );
  });

  it('notices lines torn by another writer after it opened, and a file that shrank', async () => {
    const path = freshFile();
    await writeDrafts(path, [1]);
    const sink = createJsonlReceiptSink({ path });
    const writer = createReceiptWriter({ sink, signer: keys.signer });
    await sink.open();
    appendFileSync(path, '{"seq":2,');

    await expect(writer.write(draft(2))).rejects.toThrow(ReceiptSinkCorruptError);
    writeFileSync(path, '');
    await expect(sink.last()).resolves.toBeNull();
    await writer.close();
  });

  it('refuses operations after close; closing twice is fine', async () => {
    const sink = createJsonlReceiptSink({ path: freshFile() });
    await sink.close();
    await sink.close();

    await expect(sink.last()).rejects.toThrow(ReceiptSinkUnavailableError);
  });
});

describe('JSONL receipt sink, several writers', () => {
  it('two sinks on one file (as two processes) interleave appends without forking the chain', async () => {
    const path = freshFile();
    const writers = [1, 2].map(() =>
      createReceiptWriter({ sink: createJsonlReceiptSink({ path }), signer: keys.signer }),
    );

    await Promise.all(
      Array.from({ length: 40 }, (_, n) => (writers[n % 2] as (typeof writers)[number]).write(draft(n + 1))),
    );
    await Promise.all(writers.map((writer) => writer.close()));

    expect(await verifyReceipts(path, { keys: keys.verifier })).toMatchObject({ ok: true, count: 40 });
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('three processes appending to one file at once write one chain', { timeout: 120_000 }, async () => {
    const path = freshFile();
    const secret = 's'.repeat(32);

    const exits = await spawnWriters(3, { kind: 'jsonl', location: path, secret, count: 20 });

    for (const exit of exits) expect(exit, exit.stderr).toMatchObject({ code: 0, stdout: 'done\n' });
    const verifier = hmacPair('k1', secret).verifier;
    expect(await verifyReceipts(path, { keys: verifier })).toMatchObject({ ok: true, count: 60 });
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('breaks a lock left by a process that died holding it', async () => {
    const path = freshFile();
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(`${path}.lock`, `${dead.stdout}@${hostname()}:stale-token`);

    const [written] = await writeDrafts(path, [1]);

    expect(written?.status).toBe('appended');
    expect(existsSync(`${path}.lock`)).toBe(false);
  });

  it('waits for a live holder, then reports it', async () => {
    const path = freshFile();
    writeFileSync(`${path}.lock`, `${process.pid}@${hostname()}:someone-else`);
    const sink = createJsonlReceiptSink({ path, lockTimeoutMs: 100 });

    await expect(sink.last()).rejects.toThrow(`is held by \`${process.pid}@${hostname()}\``);
    expect(readFileSync(`${path}.lock`, 'utf8')).toContain('someone-else');
    await sink.close();
  });
});
