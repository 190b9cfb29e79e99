/**
 * Shared helpers for drivers: record (de)serialisation and list cursors.
 */
import { LedgerStorageCorruptError } from '../errors.js';
import { decisionShapeProblem } from './decision.js';
import { DEFAULT_LIST_LIMIT, type ListQuery, MAX_LIST_LIMIT } from './ledger-storage.js';
import type { TransitionRecord } from './transition-record.js';

/** Serialise a record for storage. */
export function encodeRecord(record: TransitionRecord): string {
  return JSON.stringify(record);
}

/**
 * Parse a stored record; anything unparseable fails closed.
 *
 * @param location names the store and key in the error (`ledger.db#key`).
 */
export function decodeRecord(text: string, location: string): TransitionRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (cause) {
    throw new LedgerStorageCorruptError(location, 'the stored record is not valid JSON', { cause });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new LedgerStorageCorruptError(location, 'the stored record is not an object');
  }
  const record = parsed as Partial<TransitionRecord>;
  if (typeof record.key !== 'string' || typeof record.version !== 'number') {
    throw new LedgerStorageCorruptError(location, 'the stored record has no key or version');
  }
  // A record written before the decision protocol has none; one that has a decision must hold one.
  if (record.decision !== undefined) {
    const problem = decisionShapeProblem(record.decision);
    if (problem !== null) throw new LedgerStorageCorruptError(location, `the stored decision is malformed: ${problem}`);
  }
  return parsed as TransitionRecord;
}

/**
 * The result of a create that stored `doc`: the stored record is decoded from the document only
 * when someone reads it (the ledger keeps the record it wrote), once.
 */
export function createdResult(
  doc: string,
  location: string,
): { readonly created: true; readonly record: TransitionRecord } {
  let record: TransitionRecord | undefined;
  return {
    created: true,
    get record(): TransitionRecord {
      record ??= decodeRecord(doc, location);
      return record;
    },
  };
}

/** Position of a record in the list order (newest update first, then key descending). */
export interface ListPosition {
  readonly updatedAt: number;
  readonly key: string;
}

/** Encode the position after which the next page starts. */
export function encodeCursor(position: ListPosition): string {
  return Buffer.from(JSON.stringify([position.updatedAt, position.key]), 'utf8').toString('base64url');
}

/** Decode a cursor made by {@link encodeCursor}; a malformed one is refused. */
export function decodeCursor(cursor: string): ListPosition {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(parsed) && typeof parsed[0] === 'number' && typeof parsed[1] === 'string') {
      return { updatedAt: parsed[0], key: parsed[1] };
    }
  } catch {
    // fall through to the typed error
  }
  throw new RangeError(`Malformed list cursor \`${cursor}\``);
}

/** The page size a query asks for, clamped to 1..{@link MAX_LIST_LIMIT}. */
export function listLimit(query: ListQuery): number {
  const limit = query.limit ?? DEFAULT_LIST_LIMIT;
  if (!Number.isInteger(limit) || limit < 1)
    throw new RangeError(`List limit must be a positive integer, got \`${limit}\``);
  return Math.min(limit, MAX_LIST_LIMIT);
}

/** The outcomes a query filters on, as an array (empty when it does not filter). */
export function listOutcomes(query: ListQuery): readonly string[] {
  if (query.outcome === undefined) return [];
  return typeof query.outcome === 'string' ? [query.outcome] : query.outcome;
}

/** True when `a` sorts after `b` in list order (so `a` comes on a later page). */
export function isAfterPosition(record: ListPosition, after: ListPosition): boolean {
  return record.updatedAt < after.updatedAt || (record.updatedAt === after.updatedAt && record.key < after.key);
}
