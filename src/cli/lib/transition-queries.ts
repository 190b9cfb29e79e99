/**
 * Reading transitions across a config's ledgers: filtered lists (with the derived EXPIRED and
 * "stuck" filters applied while paging), lookup by key or key prefix, and the claims of an owner,
 * over the ledger's operator read model.
 */

import {
  claimsHeldBy,
  findTransition as findIn,
  isStuck,
  scanPages,
  shownOutcome,
  storedOutcomes,
  type TransitionReader,
} from '../../ledger/operator/read-model.js';
import type { RecordKind, TransitionRecord } from '../../records/transition-record.js';
import type { ListQuery } from '../../storage/ledger-storage.js';

/** What `transitions list` asks for. */
export interface TransitionFilter {
  /** Outcomes to show; `EXPIRED` selects IN_FLIGHT records whose lease has passed. */
  readonly outcomes: readonly string[];
  readonly tool: string | undefined;
  /** `denial` lists only the records of refused calls; `tool` and `task` only transitions. */
  readonly kind?: RecordKind | undefined;
  readonly stuck: boolean;
  readonly limit: number;
}

function matches(record: TransitionRecord, filter: TransitionFilter, now: number): boolean {
  if (filter.stuck && !isStuck(record, now)) return false;
  return filter.outcomes.length === 0 || filter.outcomes.includes(shownOutcome(record, now));
}

/** The records of every ledger that pass `filter`, newest update first, at most `filter.limit`. */
export async function listTransitions(
  ledgers: readonly TransitionReader[],
  filter: TransitionFilter,
  now: number,
): Promise<TransitionRecord[]> {
  const outcome = storedOutcomes(filter.outcomes);
  const query: ListQuery = {
    ...(outcome === undefined ? {} : { outcome }),
    ...(filter.tool === undefined ? {} : { tool: filter.tool }),
    ...(filter.kind === undefined ? {} : { kind: filter.kind }),
  };
  const found: TransitionRecord[] = [];
  // Each store lists newest first, so its newest `limit` matches are all it can add to the answer.
  for (const ledger of ledgers) {
    const scan = await scanPages(ledger, query, { keep: (record) => matches(record, filter, now), want: filter.limit });
    found.push(...scan.records);
  }
  found.sort((a, b) => b.updatedAt - a.updatedAt || (a.key < b.key ? 1 : -1));
  return found.slice(0, filter.limit);
}

/** The ledger holding `key` and its record, or undefined. */
export function findTransition<L extends TransitionReader>(
  ledgers: readonly L[],
  key: string,
): Promise<{ readonly ledger: L; readonly record: TransitionRecord } | undefined> {
  return findIn(ledgers, key, (ledger) => ledger);
}

/** The shortest key prefix `transitions show` looks up (as git takes abbreviated hashes). */
export const MIN_KEY_PREFIX = 4;

/** What a key or a key prefix names: one transition, several (ambiguous), or none. */
export type KeyLookup<L> =
  | { readonly kind: 'found'; readonly ledger: L; readonly record: TransitionRecord }
  | { readonly kind: 'ambiguous'; readonly keys: readonly string[] }
  | { readonly kind: 'none' };

/**
 * The transition whose key is `key`, or whose key starts with `key` (at least
 * {@link MIN_KEY_PREFIX} hex digits) when exactly one does. A prefix is matched by paging through
 * the records, so it costs a scan of the stores.
 */
export async function lookupTransition<L extends TransitionReader>(
  ledgers: readonly L[],
  key: string,
): Promise<KeyLookup<L>> {
  const exact = await findTransition(ledgers, key);
  if (exact !== undefined) return { kind: 'found', ...exact };
  const prefix = key.toLowerCase();
  if (prefix.length < MIN_KEY_PREFIX || prefix.length >= 64 || !/^[0-9a-f]+$/.test(prefix)) return { kind: 'none' };
  const found: { ledger: L; record: TransitionRecord }[] = [];
  for (const ledger of ledgers) {
    const scan = await scanPages(ledger, {}, { keep: (record) => record.key.startsWith(prefix) });
    for (const record of scan.records) found.push({ ledger, record });
  }
  const [only] = found;
  if (only !== undefined && found.length === 1) return { kind: 'found', ...only };
  if (found.length === 0) return { kind: 'none' };
  return { kind: 'ambiguous', keys: found.map((match) => match.record.key).sort() };
}

/** The IN_FLIGHT records held by `owner` (an owner id, one ledger's or a worker's; see `heldBy`). */
export async function transitionsOwnedBy<L extends TransitionReader>(
  ledgers: readonly L[],
  owner: string,
): Promise<{ readonly ledger: L; readonly record: TransitionRecord }[]> {
  const found: { ledger: L; record: TransitionRecord }[] = [];
  for (const ledger of ledgers) {
    for (const record of await claimsHeldBy(ledger, owner)) found.push({ ledger, record });
  }
  return found;
}
