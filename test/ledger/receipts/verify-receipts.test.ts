import { writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { createReceiptWriter, sealReceipt } from '../../../src/ledger/receipts/receipt-writer.js';
import { verifyReceipts } from '../../../src/ledger/receipts/verify-receipts.js';
import { createMemoryReceiptSink } from '../../../src/storage/memory-receipt-sink.js';
import { type Receipt, receiptHash } from '../../../src/storage/receipt.js';
import { algorithms, buildChain, draft, hmacPair, scratchDir, toJsonl } from './receipt-helpers.js';

const scratch = scratchDir();
afterAll(() => scratch.remove());

const suites = await Promise.all(
  algorithms.map(async ({ name, pair }) => {
    const keys = pair('k1');
    return { name, pair, keys, chain: await buildChain(keys.signer, 6) };
  }),
);

describe.each(suites)('verifyReceipts, $name', ({ pair, keys, chain }) => {
  it('an intact chain verifies: count and head', async () => {
    const result = await verifyReceipts(chain, { keys: keys.verifier });

    expect(result).toEqual({ ok: true, count: 6, head: { seq: 6, hash: receiptHash(chain[5] as Receipt) } });
    expect(chain.map((receipt) => receipt.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(chain[0]?.prev).toBeNull();
    expect(chain[3]?.prev).toBe(receiptHash(chain[2] as Receipt));
  });

  const tamperings: readonly [string, Partial<Receipt>][] = [
    ['outcome', { outcome: 'FAILED_BEFORE_EFFECT' }],
    ['inputsHash', { inputsHash: 'b'.repeat(64) }],
    ['timestamp', { timestamp: '2020-01-01T00:00:00.000Z' }],
    ['agentId', { agentId: 'evil' }],
    ['error', { error: { name: 'Error', message: 'invented' } }],
    ['seq', { seq: 9 }],
  ];

  it.for(tamperings)('a tampered `%s` is reported at that seq', async ([, change]) => {
    const altered: Receipt = { ...(chain[2] as Receipt), ...change };

    const result = await verifyReceipts([chain[0], chain[1], altered, ...chain.slice(3)], { keys: keys.verifier });

    expect(result).toMatchObject({ ok: false, count: 2, firstBroken: { seq: 3, reason: 'tampered' } });
  });

  it('a tampered last receipt is reported at its seq', async () => {
    const last = { ...(chain[5] as Receipt), outcome: 'FAILED_BEFORE_EFFECT' };

    const result = await verifyReceipts([...chain.slice(0, 5), last], { keys: keys.verifier });

    expect(result).toMatchObject({ ok: false, count: 5, firstBroken: { seq: 6, reason: 'tampered' } });
  });

  it('a deleted receipt is reported where it is missing', async () => {
    const result = await verifyReceipts([...chain.slice(0, 2), ...chain.slice(3)], { keys: keys.verifier });

    expect(result).toMatchObject({
      ok: false,
      count: 2,
      firstBroken: {
        seq: 3,
        reason: 'deleted_or_reordered',
        detail: expect.stringContaining('expected seq 3, found seq 4'),
      },
    });
  });

  it('two swapped receipts are reported at the first of them', async () => {
    const swapped = [chain[0], chain[2], chain[1], ...chain.slice(3)];

    const result = await verifyReceipts(swapped, { keys: keys.verifier });

    expect(result).toMatchObject({ ok: false, count: 1, firstBroken: { seq: 2, reason: 'deleted_or_reordered' } });
  });

  it('receipts cut from the end are reported against an anchor (seq, or seq and hash)', async () => {
    const cut = chain.slice(0, 4);

    const bySeq = await verifyReceipts(cut, { keys: keys.verifier, anchor: { seq: 6 } });
    const byHash = await verifyReceipts(cut, {
      keys: keys.verifier,
      anchor: { seq: 6, hash: receiptHash(chain[5] as Receipt) },
    });

    for (const result of [bySeq, byHash]) {
      expect(result).toMatchObject({ ok: false, count: 4, firstBroken: { seq: 5, reason: 'truncated' } });
    }
    // Without an anchor a chain cut at its end is a shorter valid chain: record the head to catch it.
    expect(await verifyReceipts(cut, { keys: keys.verifier })).toMatchObject({ ok: true, count: 4 });
  });

  it('a chain that reaches the anchor and grew since verifies', async () => {
    const result = await verifyReceipts(chain, {
      keys: keys.verifier,
      anchor: { seq: 4, hash: receiptHash(chain[3] as Receipt) },
    });

    expect(result).toMatchObject({ ok: true, count: 6 });
  });

  it('a chain rewritten by someone holding the key still fails the anchored hash', async () => {
    const sink = createMemoryReceiptSink();
    const writer = createReceiptWriter({ sink, signer: keys.signer });
    for (let n = 1; n <= 6; n++) await writer.write(draft(n, { outcome: 'UNKNOWN' }));
    const anchor = { seq: 6, hash: receiptHash(chain[5] as Receipt) };

    const result = await verifyReceipts(sink.receipts(), { keys: keys.verifier, anchor });

    expect(result).toMatchObject({
      ok: false,
      firstBroken: { seq: 6, reason: 'tampered', detail: expect.stringContaining('anchored hash') },
    });
  });

  it('a wrong key is reported at the first receipt as a bad signature', async () => {
    const result = await verifyReceipts(chain, { keys: pair('k1').verifier });

    expect(result).toMatchObject({ ok: false, count: 0, firstBroken: { seq: 1, reason: 'bad_signature' } });
  });

  it('an unknown key id is reported, naming the key ids held', async () => {
    const result = await verifyReceipts(chain, { keys: pair('k2').verifier });

    expect(result).toMatchObject({
      ok: false,
      count: 0,
      firstBroken: { seq: 1, reason: 'unknown_key', detail: 'key id `k1` is not among the keys (`k2`)' },
    });
  });

  it('a chain whose key rotated verifies with both keys, and breaks at the switch with only the first', async () => {
    const next = pair('k2');
    const sink = createMemoryReceiptSink();
    for (const n of [1, 2, 3]) await createReceiptWriter({ sink, signer: keys.signer }).write(draft(n));
    for (const n of [4, 5]) await createReceiptWriter({ sink, signer: next.signer }).write(draft(n));

    expect(await verifyReceipts(sink, { keys: [keys.verifier, next.verifier] })).toMatchObject({ ok: true, count: 5 });
    expect(await verifyReceipts(sink, { keys: [keys.verifier] })).toMatchObject({
      ok: false,
      firstBroken: { seq: 4, reason: 'unknown_key' },
    });
  });
});

describe('verifyReceipts, structural breaks', () => {
  const keys = hmacPair('k1');

  it('a receipt replaced by one of a forked chain (valid signature, same seq) is reported as forked', async () => {
    const left = await buildChain(keys.signer, 4);
    const sink = createMemoryReceiptSink();
    const writer = createReceiptWriter({ sink, signer: keys.signer });
    for (const n of [1, 2]) await writer.write(draft(n));
    await writer.write(draft(30));
    await writer.write(draft(4));
    const right = sink.receipts();

    const result = await verifyReceipts([...left.slice(0, 3), right[3]], { keys: keys.verifier });

    expect(result).toMatchObject({ ok: false, count: 3, firstBroken: { seq: 4, reason: 'forked' } });
  });

  it('a receipt id that appears twice is reported', async () => {
    const [first] = await buildChain(keys.signer, 1);
    // Properly signed and chained, but with the id of seq 1: a writer that skipped the dedupe.
    const again = sealReceipt(draft(1), { seq: 1, hash: receiptHash(first as Receipt) }, keys.signer);

    expect(await verifyReceipts([first, again], { keys: keys.verifier })).toMatchObject({
      ok: false,
      count: 1,
      firstBroken: { seq: 2, reason: 'duplicate' },
    });
  });

  it('a value that is not a receipt is reported as malformed at its position', async () => {
    const chain = await buildChain(keys.signer, 3);

    const result = await verifyReceipts([chain[0], { hello: 'world' }, chain[2]], { keys: keys.verifier });

    expect(result).toMatchObject({ ok: false, count: 1, firstBroken: { seq: 2, reason: 'malformed' } });
  });

  it('an empty chain verifies with count 0, unless an anchor expects receipts', async () => {
    expect(await verifyReceipts([], { keys: keys.verifier })).toEqual({
      ok: true,
      count: 0,
      head: { seq: 0, hash: null },
    });
    expect(await verifyReceipts([], { keys: keys.verifier, anchor: { seq: 1 } })).toMatchObject({
      ok: false,
      firstBroken: { seq: 1, reason: 'truncated' },
    });
  });
});

describe('verifyReceipts, JSONL files', () => {
  const keys = hmacPair('k1');

  it('verifies a file and gives line numbers with a break', async () => {
    const chain = await buildChain(keys.signer, 5);
    const good = scratch.file('good.jsonl');
    const bad = scratch.file('bad.jsonl');
    writeFileSync(good, toJsonl(chain));
    writeFileSync(
      bad,
      toJsonl([...chain.slice(0, 2), { ...(chain[2] as Receipt), outcome: 'UNKNOWN' }, ...chain.slice(3)]),
    );

    expect(await verifyReceipts(good, { keys: keys.verifier })).toMatchObject({ ok: true, count: 5 });
    expect(await verifyReceipts(bad, { keys: keys.verifier })).toMatchObject({
      ok: false,
      firstBroken: { seq: 3, line: 3, reason: 'tampered' },
    });
  });

  it('a torn last line (a write cut short) is reported as truncated', async () => {
    const chain = await buildChain(keys.signer, 4);
    const text = toJsonl(chain);
    const torn = scratch.file('torn.jsonl');
    writeFileSync(torn, text.slice(0, text.length - 40));

    const result = await verifyReceipts(torn, { keys: keys.verifier });

    expect(result).toMatchObject({
      ok: false,
      count: 3,
      firstBroken: { seq: 4, line: 4, reason: 'truncated', detail: expect.stringContaining('torn write') },
    });
  });

  it('a complete last line without its newline is still reported as torn', async () => {
    const chain = await buildChain(keys.signer, 2);
    const file = scratch.file('no-newline.jsonl');
    writeFileSync(file, toJsonl(chain).trimEnd());

    expect(await verifyReceipts(file, { keys: keys.verifier })).toMatchObject({
      ok: false,
      firstBroken: { seq: 2, reason: 'truncated' },
    });
  });

  it('an unparseable line inside the file is malformed, not truncated', async () => {
    const chain = await buildChain(keys.signer, 3);
    const file = scratch.file('garbled.jsonl');
    writeFileSync(file, `${JSON.stringify(chain[0])}\n{"seq": 2,\n${JSON.stringify(chain[2])}\n`);

    expect(await verifyReceipts(file, { keys: keys.verifier })).toMatchObject({
      ok: false,
      firstBroken: { seq: 2, line: 2, reason: 'malformed' },
    });
  });

  it('reports progress with bytes and the file size, ending at the full size', async () => {
    const chain = await buildChain(keys.signer, 3);
    const file = scratch.file('progress.jsonl');
    const text = toJsonl(chain);
    writeFileSync(file, text);
    const seen: unknown[] = [];

    await verifyReceipts(file, { keys: keys.verifier, onProgress: (progress) => seen.push(progress) });

    expect(seen.at(-1)).toEqual({ count: 3, bytes: Buffer.byteLength(text), totalBytes: Buffer.byteLength(text) });
  });
});
