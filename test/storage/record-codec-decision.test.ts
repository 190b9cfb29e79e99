import { describe, expect, it } from 'vitest';
import { LedgerStorageCorruptError } from '../../src/index.js';
import { composeDecision } from '../../src/ledger/decision.js';
import { decodeRecord, encodeRecord } from '../../src/storage/record-codec.js';
import { makeTestRecord } from '../../src/testing/index.js';

describe('the record codec and the decision', () => {
  it('round-trips a decision and reads a record written before the protocol without one', () => {
    const decision = composeDecision([{ check: 'ledger', verdict: 'allow', reason: 'fresh claim' }]);
    const decided = makeTestRecord({ decision });
    const older = makeTestRecord();

    expect(decodeRecord(encodeRecord(decided), 'test#1')).toEqual(decided);
    const read = decodeRecord(encodeRecord(older), 'test#2');
    expect(read).toEqual(older);
    expect(Object.hasOwn(read, 'decision')).toBe(false);
  });

  it('fails closed on a stored decision that is not one', () => {
    const bad = { ...makeTestRecord(), decision: { allowed: true, verdicts: [{ check: 'fuses', verdict: 'deny' }] } };

    expect(() => decodeRecord(JSON.stringify(bad), 'ledger.db#k')).toThrow(LedgerStorageCorruptError);
    expect(() => decodeRecord(JSON.stringify(bad), 'ledger.db#k')).toThrow(/decision is malformed/);
  });
});
