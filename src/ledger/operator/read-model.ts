/**
 * How operators read transitions, for every front door (`hyphae transitions`, the dashboard): the
 * outcome as an operator reads it (EXPIRED), what is stuck, the filters a list may name, and the
 * paging through a store's `list` that every listing, lookup and owner search uses. Pure apart from
 * the reads it is handed; the time is always given.
 */
import { Outcome } from '../../records/envelope.js';
import type { RecordKind, TransitionRecord } from '../../records/transition-record.js';
import type { ListPage, ListQuery } from '../../storage/ledger-storage.js';
import { heldBy } from '../owner-id.js';
import { claimHasExpired } from '../resolve-gate.js';

/** What reading transitions needs: a record by key, and pages of records. */
export interface TransitionReader {
  get(key: string): Promise<TransitionRecord | null>;
  list(query?: ListQuery): Promise<ListPage>;
}

/** Outcomes that need an operator: a redispatch would hard-block, or the owner may be dead. */
const STUCK_OUTCOMES: ReadonlySet<string> = new Set<Outcome>(['UNKNOWN', 'BLOCKED', 'FAILED_AFTER_EFFECT']);

/** The stored outcomes a search for stuck records asks the store for (IN_FLIGHT for the expired ones). */
export const STUCK_STORED_OUTCOMES: readonly Outcome[] = ['UNKNOWN', 'BLOCKED', 'FAILED_AFTER_EFFECT', 'IN_FLIGHT'];

/** Every record kind a filter may name. */
export const FILTER_KINDS: readonly RecordKind[] = ['tool', 'task', 'denial'];

/** Every outcome a filter may name: the stored ones and the derived `EXPIRED`. */
export const FILTER_OUTCOMES: readonly string[] = [...Object.values(Outcome), 'EXPIRED'];

/** The outcome as an operator reads it: `EXPIRED` for an IN_FLIGHT record whose lease passed. */
export function shownOutcome(record: TransitionRecord, now: number): string {
  return claimHasExpired(record, now) ? 'EXPIRED' : record.outcome;
}

/**
 * True for a record that waits for an operator: UNKNOWN, BLOCKED, FAILED_AFTER_EFFECT, or an
 * IN_FLIGHT whose lease has expired (its owner is late or dead). Never a denial record: it records
 * a refused call that claimed nothing.
 */
export function isStuck(record: TransitionRecord, now: number): boolean {
  if (record.kind === 'denial') return false;
  return STUCK_OUTCOMES.has(record.outcome) || claimHasExpired(record, now);
}

/** The stored outcomes a filter of shown outcomes asks the store for (`EXPIRED` is IN_FLIGHT there). */
export function storedOutcomes(outcomes: readonly string[]): Outcome[] | undefined {
  if (outcomes.length === 0) return undefined;
  return [...new Set(outcomes.map((outcome) => (outcome === 'EXPIRED' ? 'IN_FLIGHT' : (outcome as Outcome))))];
}

/** How far {@link scanPages} reads. */
export interface ScanOptions {
  /** Keep only the records this accepts (default: every one). */
  readonly keep?: (record: TransitionRecord) => boolean;
  /** Stop once this many records are kept. */
  readonly want?: number;
  /** Stop once this many records were read. */
  readonly scanLimit?: number;
  /** Records per store page (default 500). */
  readonly pageSize?: number;
  /** Where to start (a cursor a scan handed on). */
  readonly cursor?: string | null;
}

/** What a scan read: the records kept, how many it read, and where to read on (null at the end). */
export interface Scan {
  readonly records: TransitionRecord[];
  readonly scanned: number;
  readonly nextCursor: string | null;
}

/**
 * Page through `query` on `reader`, keeping the records `keep` accepts, until `want` are kept,
 * `scanLimit` are read, or the store has no more. Whole store pages are read, so the cursor handed
 * on never skips a record; without a filter, a page asks for no more than `want` still needs.
 */
export async function scanPages(
  reader: Pick<TransitionReader, 'list'>,
  query: ListQuery,
  options: ScanOptions = {},
): Promise<Scan> {
  const { keep, want = Number.POSITIVE_INFINITY, scanLimit = Number.POSITIVE_INFINITY, pageSize = 500 } = options;
  const records: TransitionRecord[] = [];
  let cursor = options.cursor ?? null;
  let scanned = 0;
  do {
    const limit = keep === undefined ? Math.min(pageSize, want - records.length) : pageSize;
    const page = await reader.list({ ...query, limit, ...(cursor === null ? {} : { cursor }) });
    scanned += page.records.length;
    for (const record of page.records) if (keep === undefined || keep(record)) records.push(record);
    cursor = page.nextCursor;
  } while (cursor !== null && records.length < want && scanned < scanLimit);
  return { records, scanned, nextCursor: cursor };
}

/** The first of `ledgers` holding `key`, with its record, or undefined. */
export async function findTransition<L>(
  ledgers: readonly L[],
  key: string,
  readerOf: (ledger: L) => Pick<TransitionReader, 'get'>,
): Promise<{ readonly ledger: L; readonly record: TransitionRecord } | undefined> {
  for (const ledger of ledgers) {
    const record = await readerOf(ledger).get(key);
    if (record !== null) return { ledger, record };
  }
  return undefined;
}

/** The IN_FLIGHT records held by `owner` (an owner id, one ledger's or a worker's; see `heldBy`). */
export async function claimsHeldBy(reader: Pick<TransitionReader, 'list'>, owner: string): Promise<TransitionRecord[]> {
  return (await scanPages(reader, { outcome: 'IN_FLIGHT' }, { keep: (record) => heldBy(record.owner, owner) })).records;
}
