/**
 * Reading transitions across a config's ledgers: filtered lists (with the derived EXPIRED and
 * "stuck" filters applied while paging) and lookup by key.
 */

import { heldBy } from '../../ledger/owner-id.js';
import { Outcome } from '../../storage/envelope.js';
import type { ListQuery } from '../../storage/ledger-storage.js';
import type { RecordKind, TransitionRecord } from '../../storage/transition-record.js';
import type { TransitionReader } from './config-ledgers.js';
import { isStuck, shownOutcome } from './transition-view.js';

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

/** Every record kind a filter may name. */
export const FILTER_KINDS: readonly RecordKind[] = ['tool', 'task', 'denial'];

/** Every outcome a filter may name. */
export const FILTER_OUTCOMES: readonly string[] = [...Object.values(Outcome), 'EXPIRED'];

function storedOutcomes(filter: TransitionFilter): Outcome[] | undefined {
  if (filter.outcomes.length === 0) return undefined;
  const stored = new Set<Outcome>();
  for (const outcome of filter.outcomes) stored.add(outcome === 'EXPIRED' ? 'IN_FLIGHT' : (outcome as Outcome));
  return [...stored];
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
  const found: TransitionRecord[] = [];
  const outcome = storedOutcomes(filter);
  for (const ledger of ledgers) {
    let cursor: string | null = null;
    do {
      const query: ListQuery = {
        limit: 500,
        ...(outcome === undefined ? {} : { outcome }),
        ...(filter.tool === undefined ? {} : { tool: filter.tool }),
        ...(filter.kind === undefined ? {} : { kind: filter.kind }),
        ...(cursor === null ? {} : { cursor }),
      };
      const page = await ledger.list(query);
      for (const record of page.records) if (matches(record, filter, now)) found.push(record);
      cursor = page.nextCursor;
    } while (cursor !== null && found.length < filter.limit * ledgers.length);
  }
  found.sort((a, b) => b.updatedAt - a.updatedAt || (a.key < b.key ? 1 : -1));
  return found.slice(0, filter.limit);
}

/** The ledger holding `key` and its record, or undefined. */
export async function findTransition<L extends TransitionReader>(
  ledgers: readonly L[],
  key: string,
): Promise<{ readonly ledger: L; readonly record: TransitionRecord } | undefined> {
  for (const ledger of ledgers) {
    const record = await ledger.get(key);
    if (record !== null) return { ledger, record };
  }
  return undefined;
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
  const matches: { ledger: L; record: TransitionRecord }[] = [];
  for (const ledger of ledgers) {
    let cursor: string | null = null;
    do {
      const page = await ledger.list({ limit: 500, ...(cursor === null ? {} : { cursor }) });
      for (const record of page.records) if (record.key.startsWith(prefix)) matches.push({ ledger, record });
      cursor = page.nextCursor;
    } while (cursor !== null);
  }
  const [only] = matches;
  if (only !== undefined && matches.length === 1) return { kind: 'found', ...only };
  if (matches.length === 0) return { kind: 'none' };
  return { kind: 'ambiguous', keys: matches.map((match) => match.record.key).sort() };
}

/** The IN_FLIGHT records held by `owner` (an owner id, one ledger's or a worker's; see `heldBy`). */
export async function transitionsOwnedBy<L extends TransitionReader>(
  ledgers: readonly L[],
  owner: string,
): Promise<{ readonly ledger: L; readonly record: TransitionRecord }[]> {
  const found: { ledger: L; record: TransitionRecord }[] = [];
  for (const ledger of ledgers) {
    let cursor: string | null = null;
    do {
      const page = await ledger.list({ outcome: 'IN_FLIGHT', limit: 500, ...(cursor === null ? {} : { cursor }) });
      for (const record of page.records) {
        if (heldBy(record.owner, owner)) found.push({ ledger, record });
      }
      cursor = page.nextCursor;
    } while (cursor !== null);
  }
  return found;
}
