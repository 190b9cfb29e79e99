import { describe, expect, it } from 'vitest';
import { createMemoryStorage, type LedgerStorage } from '../../src/index.js';
import {
  claimsHeldBy,
  FILTER_OUTCOMES,
  findTransition,
  isStuck,
  scanPages,
  shownOutcome,
  storedOutcomes,
} from '../../src/ledger/operator/read-model.js';
import type { ListQuery } from '../../src/storage/ledger-storage.js';
import { makeTestRecord } from '../../src/testing/index.js';

const NOW = 1_800_000_000_000;

/** A memory store of `count` COMPLETED records updated one ms apart, and the pages it was asked for. */
async function storeOf(count: number): Promise<{ storage: LedgerStorage; asked: ListQuery[] }> {
  const storage = createMemoryStorage();
  for (let i = 0; i < count; i++) {
    await storage.create(makeTestRecord({ outcome: 'COMPLETED', owner: null, leaseUntil: null, updatedAt: NOW - i }));
  }
  const asked: ListQuery[] = [];
  const list = storage.list.bind(storage);
  return {
    storage: {
      ...storage,
      list: (query = {}) => {
        asked.push(query);
        return list(query);
      },
    },
    asked,
  };
}

describe('the operator read model', () => {
  it('shows an IN_FLIGHT record whose lease passed as EXPIRED, and never counts a denial as stuck', () => {
    const held = makeTestRecord({ outcome: 'IN_FLIGHT', leaseUntil: NOW + 1 });
    const late = makeTestRecord({ outcome: 'IN_FLIGHT', leaseUntil: NOW });
    const unknown = makeTestRecord({ outcome: 'UNKNOWN', owner: null, leaseUntil: null });
    const denial = makeTestRecord({ kind: 'denial', outcome: 'BLOCKED', owner: null, leaseUntil: null });
    expect([held, late, unknown, denial].map((record) => shownOutcome(record, NOW))).toEqual([
      'IN_FLIGHT',
      'EXPIRED',
      'UNKNOWN',
      'BLOCKED',
    ]);
    expect([held, late, unknown, denial].map((record) => isStuck(record, NOW))).toEqual([false, true, true, false]);
    expect(FILTER_OUTCOMES).toContain('EXPIRED');
    expect(storedOutcomes(['EXPIRED', 'IN_FLIGHT', 'UNKNOWN'])).toEqual(['IN_FLIGHT', 'UNKNOWN']);
    expect(storedOutcomes([])).toBeUndefined();
  });

  it('pages until it has what it wants, asking no more than it still needs, and hands on the cursor', async () => {
    const { storage, asked } = await storeOf(12);
    const first = await scanPages(storage, {}, { want: 7, pageSize: 5 });
    expect(first.records.map((record) => record.updatedAt)).toEqual([0, 1, 2, 3, 4, 5, 6].map((i) => NOW - i));
    expect(asked.map((query) => query.limit)).toEqual([5, 2]);
    expect(first.nextCursor).not.toBeNull();
    const rest = await scanPages(storage, {}, { cursor: first.nextCursor, pageSize: 5 });
    expect(rest.records).toHaveLength(5);
    expect(rest.nextCursor).toBeNull();
    expect(new Set([...first.records, ...rest.records].map((record) => record.key)).size).toBe(12);
  });

  it('with a filter, reads whole pages (no record skipped) and stops at the scan bound', async () => {
    const { storage } = await storeOf(12);
    const even = (record: { updatedAt: number }) => (NOW - record.updatedAt) % 2 === 0;
    const bounded = await scanPages(storage, {}, { keep: even, want: 100, scanLimit: 4, pageSize: 4 });
    expect(bounded.scanned).toBe(4);
    expect(bounded.records).toHaveLength(2);
    const onward = await scanPages(storage, {}, { keep: even, pageSize: 4, cursor: bounded.nextCursor });
    expect(onward.scanned).toBe(8);
    expect(bounded.records.length + onward.records.length).toBe(6);
  });

  it('finds a key in the first ledger that holds it, and the claims an owner holds', async () => {
    const a = createMemoryStorage();
    const b = createMemoryStorage();
    const mine = makeTestRecord({ outcome: 'IN_FLIGHT', owner: 'host-a:1:aaaa', leaseUntil: NOW + 1 });
    const theirs = makeTestRecord({ outcome: 'IN_FLIGHT', owner: 'host-b:2:bbbb', leaseUntil: NOW + 1 });
    await b.create(mine);
    await b.create(theirs);
    const named = [
      { name: 'a', ledger: a },
      { name: 'b', ledger: b },
    ];
    const found = await findTransition(named, mine.key, (entry) => entry.ledger);
    expect(found?.ledger.name).toBe('b');
    expect(found?.record.key).toBe(mine.key);
    expect(await findTransition(named, '0'.repeat(64), (entry) => entry.ledger)).toBeUndefined();
    expect((await claimsHeldBy(b, 'host-a:1:aaaa')).map((record) => record.key)).toEqual([mine.key]);
    expect(await claimsHeldBy(a, 'host-a:1:aaaa')).toEqual([]);
  });
});
