/**
 * Small helpers shared by the conformance cases.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { CreateResult, LedgerStorage, ListQuery } from '../../storage/ledger-storage.js';

/** Create `record` and assert it was inserted. */
export async function createNew(client: LedgerStorage, record: TransitionRecord): Promise<void> {
  const result = await client.create(record);
  assert.equal(result.created, true, `create of \`${record.key}\` should insert`);
}

/** Assert exactly one create won and return its record. */
export function soleWinner(results: readonly CreateResult[]): TransitionRecord {
  const winners = results.filter((result) => result.created);
  assert.equal(winners.length, 1, `exactly one create should win, ${winners.length} did`);
  const [winner] = winners;
  assert.ok(winner !== undefined);
  return winner.record;
}

/** Try to change a returned record in place; frozen records are as good as copies. */
export function scribbleOn(record: TransitionRecord): void {
  const target = record as unknown as Record<string, unknown>;
  try {
    target.outcome = 'BLOCKED';
    target.version = 99;
    (target.scope as Record<string, unknown>).threadId = 'scribbled';
    const result = target.result as Record<string, unknown> | undefined;
    if (result !== undefined) result.scribbled = true;
  } catch {
    // A frozen record cannot be changed, which is what this guards.
  }
}

/** Every record a query matches, following `nextCursor` to the end; asserts full, non-empty pages. */
export async function listEverything(client: LedgerStorage, query: ListQuery): Promise<TransitionRecord[]> {
  const records: TransitionRecord[] = [];
  let cursor: string | null = null;
  for (let pages = 1; pages <= 10_000; pages += 1) {
    const page = await client.list(cursor === null ? query : { ...query, cursor });
    // A cursor promises more records: the page before it is full and the page after it is not empty.
    if (pages > 1) assert.ok(page.records.length > 0, `page ${pages} is empty although page ${pages - 1} had a cursor`);
    records.push(...page.records);
    if (page.nextCursor === null) return records;
    if (query.limit !== undefined)
      assert.equal(page.records.length, query.limit, `page ${pages} has a cursor but is not full`);
    cursor = page.nextCursor;
  }
  assert.fail('list kept returning cursors');
}

/** The keys of `records` in list order: newest update first, then key descending. */
export function listOrder(records: readonly TransitionRecord[]): string[] {
  return [...records]
    .sort((a, b) => b.updatedAt - a.updatedAt || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0))
    .map((record) => record.key);
}

/** The keys of `records`, in their order. */
export const keysOf = (records: readonly TransitionRecord[]): string[] => records.map((record) => record.key);

/** A name no other case (or run) uses, so cases can filter on it without wiping the store. */
export const uniqueName = (prefix: string): string => `${prefix}_${randomBytes(6).toString('hex')}`;
