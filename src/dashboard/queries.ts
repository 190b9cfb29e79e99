/**
 * What the dashboard reads, always through the stores' own paged `list` queries (never a scan of
 * everything): the at-a-glance counts over a bounded window, what is stuck, and filtered pages.
 *
 * Bounds, stated on every page that shows them:
 * - counts by outcome, tool and agent cover the transitions updated in the last `windowMs`, at most
 *   `windowLimit` of them per ledger (the newest); past that a count is a lower bound;
 * - the stuck list asks the store for UNKNOWN, BLOCKED, FAILED_AFTER_EFFECT and IN_FLIGHT records of
 *   any age, at most `stuckLimit` per ledger, and keeps IN_FLIGHT ones whose lease has passed;
 * - filters the store cannot apply (agent, thread, run, free text, EXPIRED against IN_FLIGHT) are
 *   applied to the fetched pages, at most `scanLimit` records per request; a request that reaches
 *   the bound says so and offers the cursor to read on.
 */

import {
  findTransition,
  isStuck,
  STUCK_STORED_OUTCOMES,
  scanPages,
  shownOutcome,
  storedOutcomes,
} from '../ledger/operator/read-model.js';
import type { Ledger } from '../ledger/types.js';
import type { RecordKind, TransitionRecord } from '../records/transition-record.js';
import type { ListQuery } from '../storage/ledger-storage.js';

/** A ledger of the config, under the name the dashboard shows (`action`, `task`). */
export interface NamedLedger {
  readonly name: string;
  readonly ledger: Pick<Ledger, 'get' | 'list' | 'release' | 'markWorkerDead' | 'storage' | 'records'>;
}

/** How much one request may read. */
export interface QueryLimits {
  readonly windowMs: number;
  readonly windowLimit: number;
  readonly stuckLimit: number;
  readonly scanLimit: number;
  readonly pageSize: number;
  /** The most transitions one bulk action selects and runs. */
  readonly bulkLimit: number;
}

/** The bounds the dashboard uses unless told otherwise. */
export const DEFAULT_LIMITS: QueryLimits = {
  windowMs: 24 * 3_600_000,
  windowLimit: 2_000,
  stuckLimit: 1_000,
  scanLimit: 2_000,
  pageSize: 50,
  bulkLimit: 100,
};

function countBy(records: readonly TransitionRecord[], of: (record: TransitionRecord) => string): [string, number][] {
  const counts = new Map<string, number>();
  for (const record of records) counts.set(of(record), (counts.get(of(record)) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
}

/** The at-a-glance view of one ledger. */
export interface LedgerSummary {
  readonly name: string;
  readonly store: string;
  readonly windowFrom: number;
  /** Records read for the counts, and whether the window held more. */
  readonly scanned: number;
  readonly capped: boolean;
  readonly byOutcome: readonly [string, number][];
  readonly byTool: readonly [string, number][];
  readonly byAgent: readonly [string, number][];
  /** UNKNOWN, BLOCKED, FAILED_AFTER_EFFECT and expired IN_FLIGHT records (never denials), newest first. */
  readonly stuck: readonly TransitionRecord[];
  readonly stuckCapped: boolean;
}

/** Count the window and find what is stuck, for one ledger. */
export async function summarize(named: NamedLedger, now: number, limits: QueryLimits): Promise<LedgerSummary> {
  const windowFrom = now - limits.windowMs;
  const [window, stuck] = await Promise.all([
    scanPages(named.ledger, { updatedFrom: windowFrom }, { want: limits.windowLimit, pageSize: 1000 }),
    scanPages(named.ledger, { outcome: STUCK_STORED_OUTCOMES }, { want: limits.stuckLimit, pageSize: 1000 }),
  ]);
  return {
    name: named.name,
    store: named.ledger.storage.capabilities.name,
    windowFrom,
    scanned: window.records.length,
    capped: window.nextCursor !== null,
    byOutcome: countBy(window.records, (record) => shownOutcome(record, now)),
    byTool: countBy(window.records, (record) => record.tool),
    byAgent: countBy(window.records, (record) => record.agentId),
    stuck: stuck.records.filter((record) => isStuck(record, now)),
    stuckCapped: stuck.nextCursor !== null,
  };
}

/** The filters of the list page. */
export interface ListFilter {
  readonly outcomes: readonly string[];
  readonly tool?: string;
  /** `denial` for the records of refused calls; `tool` or `task` for transitions. */
  readonly kind?: RecordKind;
  readonly from?: number;
  readonly to?: number;
  readonly agent?: string;
  readonly thread?: string;
  readonly run?: string;
  /** Matched against key, ticket and external operation ref. */
  readonly text?: string;
  readonly cursor?: string;
}

/** One list page. */
export interface ListResult {
  readonly records: readonly TransitionRecord[];
  readonly nextCursor: string | null;
  /** Records read from the store for this page. */
  readonly scanned: number;
  /** True when filters applied here stopped at `scanLimit` before filling the page. */
  readonly scanCapped: boolean;
  /** True when some filter is applied to the fetched pages rather than by the store. */
  readonly filteredHere: boolean;
}

function inPageFilter(filter: ListFilter, now: number): ((record: TransitionRecord) => boolean) | undefined {
  const derived = filter.outcomes.includes('EXPIRED') !== filter.outcomes.includes('IN_FLIGHT');
  const text = filter.text?.toLowerCase();
  if (!derived && filter.agent === undefined && filter.thread === undefined && filter.run === undefined && !text) {
    return undefined;
  }
  return (record) =>
    (!derived || filter.outcomes.includes(shownOutcome(record, now))) &&
    (filter.agent === undefined || record.agentId === filter.agent) &&
    (filter.thread === undefined || record.scope.threadId === filter.thread) &&
    (filter.run === undefined || record.scope.runId === filter.run) &&
    (!text ||
      [record.key, record.ticket, record.externalOperationRef].some((field) => field?.toLowerCase().includes(text)));
}

/** One page of `filter` on one ledger, newest update first. */
export async function listPage(
  named: NamedLedger,
  filter: ListFilter,
  now: number,
  limits: QueryLimits,
): Promise<ListResult> {
  const outcome = storedOutcomes(filter.outcomes);
  const base: ListQuery = {
    ...(outcome === undefined ? {} : { outcome }),
    ...(filter.tool === undefined ? {} : { tool: filter.tool }),
    ...(filter.kind === undefined ? {} : { kind: filter.kind }),
    ...(filter.from === undefined ? {} : { updatedFrom: filter.from }),
    ...(filter.to === undefined ? {} : { updatedTo: filter.to }),
  };
  const keep = inPageFilter(filter, now);
  if (keep === undefined) {
    const page = await named.ledger.list({
      ...base,
      limit: limits.pageSize,
      ...(filter.cursor === undefined ? {} : { cursor: filter.cursor }),
    });
    return { ...page, scanned: page.records.length, scanCapped: false, filteredHere: false };
  }
  const scan = await scanPages(named.ledger, base, {
    keep,
    want: limits.pageSize,
    scanLimit: limits.scanLimit,
    pageSize: 200,
    cursor: filter.cursor ?? null,
  });
  return {
    records: scan.records,
    nextCursor: scan.nextCursor,
    scanned: scan.scanned,
    scanCapped: scan.nextCursor !== null && scan.records.length < limits.pageSize,
    filteredHere: true,
  };
}

/** The ledger holding `key` and its record, or undefined. */
export async function findRecord(
  ledgers: readonly NamedLedger[],
  key: string,
): Promise<{ readonly named: NamedLedger; readonly record: TransitionRecord } | undefined> {
  const found = await findTransition(ledgers, key, (named) => named.ledger);
  return found === undefined ? undefined : { named: found.ledger, record: found.record };
}

/** The list page's query, as the URL carries it. */
export interface ListParams extends ListFilter {
  readonly ledger: string;
  /** The time range as typed, for the form. */
  readonly fromText?: string;
  readonly toText?: string;
}

/** The filter's text fields that are set, as `[name, value]` in the list's query names (outcomes apart). */
export function filterTextFields(params: ListParams): [string, string][] {
  const fields: [string, string | undefined][] = [
    ['tool', params.tool],
    ['kind', params.kind],
    ['from', params.fromText],
    ['to', params.toText],
    ['agent', params.agent],
    ['thread', params.thread],
    ['run', params.run],
    ['q', params.text],
  ];
  return fields.filter((field): field is [string, string] => field[1] !== undefined && field[1] !== '');
}
