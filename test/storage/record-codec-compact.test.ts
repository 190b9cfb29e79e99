import { describe, expect, it } from 'vitest';
import { LedgerStorageCorruptError } from '../../src/index.js';
import { claimDecision } from '../../src/ledger/caller-verdicts.js';
import { composeDecision } from '../../src/ledger/decision.js';
import type { TransitionRecord } from '../../src/records/transition-record.js';
import {
  COMPACT_RECORD_TAG,
  decodeRecord,
  encodeRecord,
  KEYED_RECORD_TAG,
  STORED_MEMBERS,
} from '../../src/storage/record-codec.js';
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

  it('writes every member in its place and the optional ones after, null kept null and absent kept absent', () => {
    const claim = makeTestRecord({ decision: claimDecision([], 'fresh claim', AT), ticket: null, ticketKey: null });

    const doc = encodeRecord(claim);
    const stored = JSON.parse(doc.slice(COMPACT_RECORD_TAG.length)) as unknown[];
    const read = decodeRecord(doc, 'test#claim');

    expect(stored).toHaveLength(STORED_MEMBERS.length + 1);
    for (const [at, name] of STORED_MEMBERS.entries()) expect(stored[at]).toEqual(claim[name]);
    expect(Object.keys(stored.at(-1) as object)).toEqual(['decision']);
    expect(read).toEqual(claim);
    expect(read.completedAt).toBeNull();
    expect(read.ticketKey).toBeNull();
    expect(Object.hasOwn(read, 'result')).toBe(false);
    expect(Object.hasOwn(read, 'workerDeath')).toBe(false);
  });

  it('keeps a null result and a null worker death apart from absent ones', () => {
    const record = makeTestRecord({ result: null, workerDeath: null });

    const read = decodeRecord(encodeRecord(record), 'test#nulls');

    expect(Object.hasOwn(read, 'result')).toBe(true);
    expect(read.result).toBeNull();
    expect(Object.hasOwn(read, 'workerDeath')).toBe(true);
    expect(read.workerDeath).toBeNull();
  });

  it('writes a decision of the ledger alone short, and any other decision whole', () => {
    const alone = makeTestRecord({ decision: claimDecision([], 'fresh claim', AT) });
    const withCaller = makeTestRecord({
      decision: claimDecision([{ check: 'approval', verdict: 'allow', reason: 'ops said yes' }], 'fresh claim', AT),
    });
    const noTime = makeTestRecord({
      decision: composeDecision([{ check: 'ledger', verdict: 'allow', reason: 'takeover' }]),
    });
    const trailingOf = (record: TransitionRecord) =>
      (JSON.parse(encodeRecord(record).slice(COMPACT_RECORD_TAG.length)) as unknown[]).at(-1) as {
        decision: unknown;
      };

    expect(trailingOf(alone).decision).toEqual({ ledger: 'fresh claim', at: AT });
    expect(trailingOf(withCaller).decision).toEqual(withCaller.decision);
    for (const record of [alone, withCaller, noTime])
      expect(decodeRecord(encodeRecord(record), 'test#decision')).toEqual(record);
  });

  it('makes a fresh claim about half the size of its plain JSON', () => {
    const claim = makeTestRecord({ decision: claimDecision([], 'fresh claim', AT) });

    expect(encodeRecord(claim).length).toBeLessThan(JSON.stringify(claim).length * 0.6);
  });

  it('reads a record stored in the keyed form (~2), its null members back as null', () => {
    const record = fullRecord();
    const claim = makeTestRecord({ decision: claimDecision([], 'fresh claim', AT), ticket: null, ticketKey: null });
    const keyed = (r: TransitionRecord): string => {
      const kept: Record<string, unknown> = {};
      // The keyed form left out the null members a record always holds, and kept a null result or worker death.
      for (const [name, value] of Object.entries(r))
        if (value !== null || name === 'result' || name === 'workerDeath') kept[name] = value;
      if (r.decision?.verdicts.length === 1) kept.decision = { ledger: r.decision.verdicts[0]?.reason, at: AT };
      return `${KEYED_RECORD_TAG}${JSON.stringify(kept)}`;
    };

    expect(decodeRecord(keyed(record), 'test#keyed')).toEqual(record);
    const read = decodeRecord(keyed(claim), 'test#keyed-claim');
    expect(read).toEqual(claim);
    expect(read.ticket).toBeNull();
    expect(Object.hasOwn(read, 'result')).toBe(false);
  });

  it('reads a record stored as plain JSON as it was, a missing member still missing (damage, not null)', () => {
    const older = makeTestRecord({ decision: composeDecision([{ check: 'ledger', verdict: 'allow', reason: 'x' }]) });
    const { leaseUntil: _dropped, ...damaged } = older;

    expect(decodeRecord(JSON.stringify(older), 'test#older')).toEqual(older);
    const read = decodeRecord(JSON.stringify(damaged), 'test#damaged') as Partial<TransitionRecord>;
    expect(Object.hasOwn(read, 'leaseUntil')).toBe(false);
  });

  it('keeps a member of no known name rather than drop it', () => {
    const stored = JSON.parse(encodeRecord(makeTestRecord()).slice(COMPACT_RECORD_TAG.length)) as unknown[];
    stored[STORED_MEMBERS.length] = { ...(stored.at(-1) as object), addedLater: { n: 1 } };
    const doc = `${COMPACT_RECORD_TAG}${JSON.stringify(stored)}`;
    const keyed = `${KEYED_RECORD_TAG}${JSON.stringify({ ...makeTestRecord(), addedLater: { n: 2 } })}`;

    expect((decodeRecord(doc, 'test#later') as unknown as { addedLater: unknown }).addedLater).toEqual({ n: 1 });
    expect((decodeRecord(keyed, 'test#later') as unknown as { addedLater: unknown }).addedLater).toEqual({ n: 2 });
  });

  it('fails closed on a tagged record that is not JSON, or whose short decision is not one', () => {
    const good = encodeRecord(makeTestRecord({ decision: claimDecision([], 'fresh claim', AT) }));
    const badDecision = good.replace('"ledger":"fresh claim"', '"ledger":7');
    const short = good.replace(/,\{[^[\]]*\}\]$/, ']');

    expect(short).not.toBe(good);
    expect(() => decodeRecord(`${COMPACT_RECORD_TAG}["key",`, 'ledger.db#k')).toThrow(LedgerStorageCorruptError);
    expect(() => decodeRecord(short, 'ledger.db#k')).toThrow(/not an array of 30 members/);
    expect(() => decodeRecord(`${COMPACT_RECORD_TAG}{"key":"k","version":1}`, 'ledger.db#k')).toThrow(/not an array/);
    expect(() => decodeRecord(badDecision, 'ledger.db#k')).toThrow(/decision is malformed/);
    expect(() => decodeRecord('~9{}', 'ledger.db#k')).toThrow(/not valid JSON/);
  });
});
