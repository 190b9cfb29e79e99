/**
 * Count the storage round trips of one call of each case through a counting proxy, and check them
 * against the design: the fast path is `create` + `update`, `sideEffect()` adds one `update`, and a
 * replay is the one `create` that meets the completed record.
 */
import type { LedgerStorage } from '../../src/index.js';
import { countingStorage } from '../lib/counting-storage.js';
import { CASE_KINDS, type CaseKind, ledgerCases } from './cases.js';

/** What the design says one call of each case costs. */
const EXPECTED: Readonly<Record<CaseKind, { readonly create: number; readonly update: number }>> = {
  call: { create: 1, update: 1 },
  replay: { create: 1, update: 0 },
  sideEffect: { create: 1, update: 2 },
};

/** The storage calls of one call. */
export interface WriteCount {
  readonly backend: string;
  readonly kind: CaseKind;
  readonly create: number;
  readonly update: number;
  readonly reads: number;
  /** `create` + `update` calls (a replay's `create` is an insert attempt that meets the record). */
  readonly writes: number;
  readonly expectedWrites: number;
  readonly ok: boolean;
  /** The documents written, in order. */
  readonly docs: readonly string[];
}

/** Run one call of each case against `storage` and count what reaches it. */
export async function countWrites(backend: string, storage: LedgerStorage): Promise<Record<CaseKind, WriteCount>> {
  const counting = countingStorage(storage);
  const cases = ledgerCases(backend, () => counting.storage);
  const counts = {} as Record<CaseKind, WriteCount>;
  for (const kind of CASE_KINDS) {
    const op = await cases[kind].start();
    counting.reset();
    await op();
    const { create, update, get, findByTicket, docs } = counting.calls;
    const expected = EXPECTED[kind];
    const reads = get + findByTicket;
    counts[kind] = {
      backend,
      kind,
      create,
      update,
      reads,
      writes: create + update,
      expectedWrites: expected.create + expected.update,
      ok: create === expected.create && update === expected.update && reads === 0,
      docs: [...docs],
    };
  }
  return counts;
}
