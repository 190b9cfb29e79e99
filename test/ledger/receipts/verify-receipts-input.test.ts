import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { ReceiptSinkUnavailableError } from '../../../src/errors.js';
import { verifyReceipts } from '../../../src/ledger/receipts/verify-receipts.js';
import { buildChain, hmacPair, scratchDir, toJsonl } from './receipt-helpers.js';

const scratch = scratchDir();
afterAll(() => scratch.remove());

const keys = hmacPair('k1');
const chain = await buildChain(keys.signer, 4);

describe('verifyReceipts: a duplicated line', () => {
  it('is reported as duplicate at the copy, not as deleted or reordered', async () => {
    const path = scratch.file('duplicated.jsonl');
    writeFileSync(path, toJsonl(chain));
    const lines = readFileSync(path, 'utf8').split('\n');
    writeFileSync(path, `${[lines[0], lines[1], lines[1], ...lines.slice(2)].join('\n')}`);

    const result = await verifyReceipts(path, { keys: keys.verifier });

    expect(result).toMatchObject({
      ok: false,
      count: 2,
      firstBroken: { seq: 3, line: 3, reason: 'duplicate', detail: expect.stringContaining('(seq 2) appears twice') },
    });
  });

  it('is reported as duplicate when the last line is repeated', async () => {
    const path = scratch.file('last-twice.jsonl');
    writeFileSync(path, toJsonl(chain));
    appendFileSync(path, toJsonl(chain.slice(-1)));

    const result = await verifyReceipts(path, { keys: keys.verifier });

    expect(result).toMatchObject({ ok: false, count: 4, firstBroken: { seq: 5, reason: 'duplicate' } });
  });
});

describe('verifyReceipts: arguments it cannot use', () => {
  const invalid = { code: 'invalid_argument' };

  it.each([null, 5, undefined, {}])('refuses the source %j', async (source) => {
    await expect(verifyReceipts(source as never, { keys: keys.verifier })).rejects.toMatchObject({
      ...invalid,
      argument: 'source',
    });
  });

  it('refuses missing, empty or malformed keys', async () => {
    await expect(verifyReceipts(chain, undefined as never)).rejects.toMatchObject({
      ...invalid,
      argument: 'options.keys',
    });
    await expect(verifyReceipts(chain, {} as never)).rejects.toMatchObject({ ...invalid, argument: 'options.keys' });
    await expect(verifyReceipts(chain, { keys: [] })).rejects.toMatchObject({ ...invalid, argument: 'options.keys' });
    await expect(verifyReceipts(chain, { keys: [null] as never })).rejects.toMatchObject(invalid);
    await expect(verifyReceipts(chain, null as never)).rejects.toMatchObject({ ...invalid, argument: 'options' });
  });

  it('refuses an anchor or progress hook of the wrong kind', async () => {
    const options = { keys: keys.verifier };
    await expect(verifyReceipts(chain, { ...options, anchor: { seq: -1 } })).rejects.toMatchObject(invalid);
    await expect(verifyReceipts(chain, { ...options, anchor: null as never })).rejects.toMatchObject(invalid);
    await expect(verifyReceipts(chain, { ...options, onProgress: 5 as never })).rejects.toMatchObject(invalid);
  });

  it('refuses options whose getters throw', async () => {
    const options = {
      get keys(): never {
        throw new Error('boom');
      },
    };
    await expect(verifyReceipts(chain, options)).rejects.toMatchObject({ ...invalid, argument: 'options.keys' });
  });

  it('reports a file that cannot be read as ReceiptSinkUnavailableError', async () => {
    const missing = scratch.file('missing.jsonl');

    await expect(verifyReceipts(missing, { keys: keys.verifier })).rejects.toBeInstanceOf(ReceiptSinkUnavailableError);
  });

  it('still verifies a good chain', async () => {
    expect(await verifyReceipts(chain, { keys: [keys.verifier] })).toMatchObject({ ok: true, count: 4 });
  });
});
