/**
 * `list` for the Redis driver: keyset paging over the `updated` sorted set, filtered by the script.
 */
import { LedgerStorageCorruptError } from '../../errors.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { ListPage, ListQuery } from '../ledger-storage.js';
import { decodeCursor, decodeRecord, encodeCursor, listLimit, listOutcomes } from '../record-codec.js';
import { replyArray, replyText } from './connection.js';
import { LIST_PAGE_SCRIPT } from './scripts.js';

/** Index entries one script call examines at most, so a sparse filter never holds the server long. */
const EXAMINE_PER_CALL = 1000;

/** Runs the list script with the given ARGV; the caller binds the client, keys and error handling. */
export type RunListScript = (script: string, args: readonly string[]) => Promise<unknown>;

/** Where a walk of the index (re)starts: a score bound and, for ties, the last key seen. */
export interface WalkPosition {
  readonly upper: string;
  readonly resumeKey: string | null;
}

/** An optional string as a script argument: `''` for none, `'=' + value` otherwise. */
export function marker(value: string | null | undefined): string {
  return value === null || value === undefined ? '' : `=${value}`;
}

/** A validated list query, ready to walk the index. */
export interface ListPlan {
  readonly limit: number;
  readonly lower: string;
  readonly filters: readonly string[];
  readonly start: WalkPosition;
}

/** Check a query and work out where the walk starts; a bad limit or cursor throws a RangeError. */
export function planList(query: ListQuery): ListPlan {
  const limit = listLimit(query);
  const cursor = query.cursor === undefined ? null : decodeCursor(query.cursor);
  const to = query.updatedTo;
  const start: WalkPosition =
    cursor !== null && (to === undefined || to > cursor.updatedAt)
      ? { upper: String(cursor.updatedAt), resumeKey: cursor.key }
      : { upper: to === undefined ? '+inf' : `(${to}`, resumeKey: null };
  return {
    limit,
    lower: query.updatedFrom === undefined ? '-inf' : String(query.updatedFrom),
    filters: [marker(query.tool), marker(query.kind), ...listOutcomes(query)],
    start,
  };
}

/**
 * One page of records, newest update first, then key descending.
 *
 * The script returns at most the records still wanted per call; this loop resumes from the last
 * index entry the script examined until it has `limit + 1` matches (the extra one only proves that
 * a next page exists) or the index is exhausted.
 */
export async function listRecords(
  plan: ListPlan,
  recordPrefix: string,
  locationOf: (key: string) => string,
  run: RunListScript,
): Promise<ListPage> {
  const { limit, lower, filters } = plan;
  const found: { key: string; updatedAt: number; record: TransitionRecord }[] = [];
  let position = plan.start;

  for (;;) {
    const wanted = limit + 1 - found.length;
    const reply = await run(LIST_PAGE_SCRIPT, [
      recordPrefix,
      position.upper,
      marker(position.resumeKey),
      lower,
      String(wanted),
      String(EXAMINE_PER_CALL),
      ...filters,
    ]);
    const parts = replyArray(reply).map(replyText);
    const [status, lastScore, lastMember] = parts;
    if (status === 'missing') {
      // The reply is `{ 'missing', key }`: the index and the records disagree, so fail closed.
      throw new LedgerStorageCorruptError(locationOf(lastScore ?? ''), 'the list index names a key that has no record');
    }
    if (status !== 'done' && status !== 'more') throw new TypeError('Unexpected reply from the Redis list script');
    for (let i = 3; i + 2 < parts.length; i += 3) {
      const key = parts[i] ?? '';
      found.push({ key, updatedAt: Number(parts[i + 1]), record: decodeRecord(parts[i + 2] ?? '', locationOf(key)) });
    }
    const finished = status === 'done' || found.length > limit;
    if (finished || typeof lastScore !== 'string' || typeof lastMember !== 'string') break;
    position = { upper: lastScore, resumeKey: lastMember };
  }

  const page = found.slice(0, limit);
  const last = page.at(-1);
  return {
    records: page.map((entry) => entry.record),
    nextCursor: found.length > limit && last !== undefined ? encodeCursor(last) : null,
  };
}
