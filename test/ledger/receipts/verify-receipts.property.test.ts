/**
 * Whatever single change is made to an intact chain, verification reports it at the right seq.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { verifyReceipts } from '../../../src/ledger/receipts/verify-receipts.js';
import { type Receipt, receiptHash } from '../../../src/storage/receipt.js';
import { buildChain, hmacPair } from './receipt-helpers.js';

const keys = hmacPair('k1');
const chain = await buildChain(keys.signer, 20);
const OUTCOMES = ['COMPLETED', 'FAILED_BEFORE_EFFECT', 'FAILED_AFTER_EFFECT', 'UNKNOWN', 'BLOCKED'] as const;

const change = fc.oneof(
  fc.record({ kind: fc.constant('tamper' as const), at: fc.nat(19), outcome: fc.constantFrom(...OUTCOMES) }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat(18) }),
  fc.record({ kind: fc.constant('swap' as const), at: fc.nat(18) }),
  fc.record({ kind: fc.constant('truncate' as const), keep: fc.nat(19) }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat(19) }),
);

describe('verifyReceipts, one change anywhere', () => {
  it('reports the first broken link at the changed position', async () => {
    await fc.assert(
      fc.asyncProperty(change, async (c) => {
        const receipts: unknown[] = [...chain];
        let expected: { seq: number; reasons: readonly string[] };
        switch (c.kind) {
          case 'tamper': {
            const original = chain[c.at] as Receipt;
            fc.pre(original.outcome !== c.outcome);
            receipts[c.at] = { ...original, outcome: c.outcome };
            expected = { seq: c.at + 1, reasons: ['tampered'] };
            break;
          }
          case 'delete':
            receipts.splice(c.at, 1);
            expected = { seq: c.at + 1, reasons: ['deleted_or_reordered'] };
            break;
          case 'swap':
            [receipts[c.at], receipts[c.at + 1]] = [receipts[c.at + 1], receipts[c.at]];
            expected = { seq: c.at + 1, reasons: ['deleted_or_reordered'] };
            break;
          case 'truncate':
            receipts.splice(c.keep);
            expected = { seq: c.keep + 1, reasons: ['truncated'] };
            break;
          case 'duplicate':
            // The same line written twice: the copy sits where seq at + 2 belongs.
            receipts.splice(c.at + 1, 0, chain[c.at]);
            expected = { seq: c.at + 2, reasons: ['duplicate'] };
            break;
        }
        const anchor = { seq: 20, hash: receiptHash(chain[19] as Receipt) };

        const result = await verifyReceipts(receipts, { keys: keys.verifier, anchor });

        expect(result.ok).toBe(false);
        if (result.ok) return;
        expect(result.firstBroken.seq).toBe(expected.seq);
        expect(expected.reasons).toContain(result.firstBroken.reason);
        expect(result.count).toBe(expected.seq - 1);
      }),
      { numRuns: 200 },
    );
  });
});
