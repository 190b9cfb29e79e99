import { describe, expect, it } from 'vitest';
import { LedgerStorageCorruptError } from '../../src/index.js';
import { claimDecision } from '../../src/ledger/caller-verdicts.js';
import { composeDecision } from '../../src/ledger/decision.js';
import type { TransitionRecord } from '../../src/records/transition-record.js';
import { COMPACT_RECORD_TAG, decodeRecord, encodeRecord } from '../../src/storage/record-codec.js';
import { makeTestRecord } from '../../src/testing/index.js';

const AT = 1_800_000_000_000;

/** A record with every member set, none null. */
function fullRecord(): TransitionRecord {
  return makeTestRecord({
    outcome: 'COMPLETED',
    boundary: 'crossed',
    owner: 'owner-1#7',
    leaseUntil: AT + 1,
    result: { charged: 100, lines: [1, null, { deep: 'x' }] },
    error: { name: 'Error', message: 'an earlier attempt failed', code: 'E_OLD' },
    externalOperationRef: 'pi_123',
    providerIdempotencyKey: 'idem-1',
    operatorResolution: {
      verified: 'completed',
      by: 'ops',
      reason: 'checked',
      at: AT,
      consumedAt: null,
      previousOutcome: 'UNKNOWN',
    },
    workerDeath: null,
    receiptRef: 'receipt-1',
    decision: composeDecision([
      { check: 'fuses', verdict: 'allow' },
      { check: 'ledger', verdict: 'allow', reason: 'takeover' },
    ]),
    refusedTransition: 'k-refused',
    completedAt: AT + 2,
  });
}

describe('the compact record form', () => {
  it('writes a tagged form that reads back equal, every member kept', () => {
    const record = fullRecord();

    const doc = encodeRecord(record);

    expect(doc.startsWith(COMPACT_RECORD_TAG)).toBe(true);
    expect(decodeRecord(doc, 'test#full')).toEqual(record);
    expect(Object.keys(decodeRecord(doc, 'test#full')).sort()).toEqual(Object.keys(record).sort());
  });

  it('leaves null members out and puts them back as null, never as absent', () => {
    const claim = makeTestRecord({ decision: claimDecision([], 'fresh claim', AT), ticket: null, ticketKey: null });

    const doc = encodeRecord(claim);
    const stored = JSON.parse(doc.slice(COMPACT_RECORD_TAG.length)) as Record<string, unknown>;
    const read = decodeRecord(doc, 'test#claim');

    for (const name of ['ticket', 'ticketKey', 'error', 'externalOperationRef', 'receiptRef', 'completedAt'])
      expect(Object.hasOwn(stored, name)).toBe(false);
    expect(read).toEqual(claim);
    expect(read.completedAt).toBeNull();
    expect(read.ticketKey).toBeNull();
    expect(Object.hasOwn(read, 'result')).toBe(false);
    expect(Object.hasOwn(read, 'workerDeath')).toBe(false);
  });

  it('writes a decision of the ledger alone short, and any other decision whole', () => {
    const alone = makeTestRecord({ decision: claimDecision([], 'fresh claim', AT) });
    const withCaller = makeTestRecord({
      decision: claimDecision([{ check: 'approval', verdict: 'allow', reason: 'ops said yes' }], 'fresh claim', AT),
    });
    const noTime = makeTestRecord({
      decision: composeDecision([{ check: 'ledger', verdict: 'allow', reason: 'takeover' }]),
    });

    const short = JSON.parse(encodeRecord(alone).slice(COMPACT_RECORD_TAG.length)) as { decision: unknown };
    const whole = JSON.parse(encodeRecord(withCaller).slice(COMPACT_RECORD_TAG.length)) as { decision: unknown };

    expect(short.decision).toEqual({ ledger: 'fresh claim', at: AT });
    expect(whole.decision).toEqual(withCaller.decision);
    for (const record of [alone, withCaller, noTime])
      expect(decodeRecord(encodeRecord(record), 'test#decision')).toEqual(record);
  });

  it('makes a fresh claim about a fifth smaller than its plain JSON', () => {
    const claim = makeTestRecord({ decision: claimDecision([], 'fresh claim', AT) });

    expect(encodeRecord(claim).length).toBeLessThan(JSON.stringify(claim).length * 0.8);
  });

  it('reads a record stored as plain JSON as it was, a missing member still missing (damage, not null)', () => {
    const older = makeTestRecord({ decision: composeDecision([{ check: 'ledger', verdict: 'allow', reason: 'x' }]) });
    const { leaseUntil: _dropped, ...damaged } = older;

    expect(decodeRecord(JSON.stringify(older), 'test#older')).toEqual(older);
    const read = decodeRecord(JSON.stringify(damaged), 'test#damaged') as Partial<TransitionRecord>;
    expect(Object.hasOwn(read, 'leaseUntil')).toBe(false);
  });

  it('keeps a member of no known name rather than drop it', () => {
    const doc = `${COMPACT_RECORD_TAG}${JSON.stringify({ ...makeTestRecord(), addedLater: { n: 1 } })}`;

    expect((decodeRecord(doc, 'test#later') as unknown as { addedLater: unknown }).addedLater).toEqual({ n: 1 });
  });

  it('fails closed on a tagged record that is not JSON, or whose short decision is not one', () => {
    const good = encodeRecord(makeTestRecord({ decision: claimDecision([], 'fresh claim', AT) }));
    const badDecision = good.replace('"ledger":"fresh claim"', '"ledger":7');

    expect(() => decodeRecord(`${COMPACT_RECORD_TAG}{"key":`, 'ledger.db#k')).toThrow(LedgerStorageCorruptError);
    expect(() => decodeRecord(badDecision, 'ledger.db#k')).toThrow(/decision is malformed/);
    expect(() => decodeRecord('~9{}', 'ledger.db#k')).toThrow(/not valid JSON/);
  });
});
