/**
 * Shared helpers for drivers: record (de)serialisation and list cursors.
 */
import { LedgerStorageCorruptError } from '../errors.js';
import { decisionShapeProblem, type TransitionDecision } from '../records/decision.js';
import type { TransitionRecord } from '../records/transition-record.js';
import { DEFAULT_LIST_LIMIT, type ListQuery, MAX_LIST_LIMIT } from './ledger-storage.js';

/**
 * The tag that opens a record stored in the compact form (format 2). A record stored before it is
 * plain JSON and opens with `{`; an earlier version of hyphae refuses a tagged one as corrupt, so a
 * store shared with one fails closed rather than misread.
 */
export const COMPACT_RECORD_TAG = '~2';

/** A decision the ledger alone made (one `ledger` verdict that allows), kept as `{ ledger: reason, at? }`. */
interface ShortDecision {
  readonly ledger: string;
  readonly at?: number;
}

function shortDecision(decision: TransitionDecision | undefined): TransitionDecision | ShortDecision | undefined {
  if (decision === undefined || decision === null || typeof decision !== 'object') return decision;
  const verdicts = decision.verdicts;
  const only = Array.isArray(verdicts) && verdicts.length === 1 ? verdicts[0] : undefined;
  if (
    decision.allowed !== true ||
    only?.check !== 'ledger' ||
    only.verdict !== 'allow' ||
    typeof only.reason !== 'string' ||
    !Array.isArray(decision.deniedReasons) ||
    decision.deniedReasons.length !== 0 ||
    membersOf(only) !== 3 ||
    membersOf(decision) !== (decision.at === undefined ? 3 : 4)
  )
    return decision;
  return decision.at === undefined ? { ledger: only.reason } : { ledger: only.reason, at: decision.at };
}

/** How many enumerable members `value` has (what JSON writes), without building a list of them. */
function membersOf(value: object): number {
  let count = 0;
  for (const _name in value) count += 1;
  return count;
}

function longDecision(value: unknown): unknown {
  const short = value as Partial<ShortDecision> | null;
  if (short === null || typeof short !== 'object' || typeof short.ledger !== 'string') return value;
  const verdicts = [{ check: 'ledger', verdict: 'allow', reason: short.ledger }];
  return short.at === undefined
    ? { allowed: true, verdicts, deniedReasons: [] }
    : { allowed: true, verdicts, deniedReasons: [], at: short.at };
}

/** `value`, or undefined (which JSON leaves out) for null. */
const dropNull = <T>(value: T | null): T | undefined => (value === null ? undefined : value);

/** Every member of a record, as the compact form writes it (the type lists them all, so none is forgotten). */
type CompactMembers = { readonly [K in keyof Required<TransitionRecord>]: unknown };

/**
 * Serialise a record for storage, in the compact form: {@link COMPACT_RECORD_TAG}, then the JSON of
 * the record without the members that are null (reading puts them back), a decision of the ledger
 * alone written short. A first claim is about a fifth fewer bytes.
 */
export function encodeRecord(r: TransitionRecord): string {
  const kept: CompactMembers = {
    key: r.key,
    kind: r.kind,
    tool: r.tool,
    agentId: r.agentId,
    policyVersion: r.policyVersion,
    scope: r.scope,
    ticket: dropNull(r.ticket),
    ticketKey: dropNull(r.ticketKey),
    argsFingerprint: r.argsFingerprint,
    sideEffectClass: r.sideEffectClass,
    retryPermission: r.retryPermission,
    spendability: r.spendability,
    outcome: r.outcome,
    boundary: r.boundary,
    owner: dropNull(r.owner),
    fence: r.fence,
    version: r.version,
    leaseUntil: dropNull(r.leaseUntil),
    lastHeartbeatAt: dropNull(r.lastHeartbeatAt),
    attempts: r.attempts,
    result: r.result,
    error: dropNull(r.error),
    externalOperationRef: dropNull(r.externalOperationRef),
    providerIdempotencyKey: dropNull(r.providerIdempotencyKey),
    firstAttemptAt: r.firstAttemptAt,
    operatorResolution: dropNull(r.operatorResolution),
    workerDeath: r.workerDeath,
    receiptRef: dropNull(r.receiptRef),
    decision: shortDecision(r.decision),
    refusedTransition: r.refusedTransition,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    completedAt: dropNull(r.completedAt),
  };
  return COMPACT_RECORD_TAG + JSON.stringify(kept);
}

/** A record read in the compact form, with its null members back and its decision written out. */
function expanded(p: Partial<Record<keyof TransitionRecord, unknown>>): Record<string, unknown> {
  const record: Record<string, unknown> = {
    key: p.key,
    kind: p.kind,
    tool: p.tool,
    agentId: p.agentId,
    policyVersion: p.policyVersion,
    scope: p.scope,
    ticket: p.ticket ?? null,
    ticketKey: p.ticketKey ?? null,
    argsFingerprint: p.argsFingerprint,
    sideEffectClass: p.sideEffectClass,
    retryPermission: p.retryPermission,
    spendability: p.spendability,
    outcome: p.outcome,
    boundary: p.boundary,
    owner: p.owner ?? null,
    fence: p.fence,
    version: p.version,
    leaseUntil: p.leaseUntil ?? null,
    lastHeartbeatAt: p.lastHeartbeatAt ?? null,
    attempts: p.attempts,
    error: p.error ?? null,
    externalOperationRef: p.externalOperationRef ?? null,
    providerIdempotencyKey: p.providerIdempotencyKey ?? null,
    firstAttemptAt: p.firstAttemptAt,
    operatorResolution: p.operatorResolution ?? null,
    receiptRef: p.receiptRef ?? null,
    createdAt: p.createdAt,
    updatedAt: p.updatedAt,
    completedAt: p.completedAt ?? null,
  };
  // Members a record may lack stay absent; a member of no known name is kept, never dropped.
  for (const name in p) {
    if (!(name in record))
      record[name] = name === 'decision' ? longDecision(p[name]) : p[name as keyof TransitionRecord];
  }
  return record;
}

/**
 * Parse a stored record, compact or plain JSON; anything unparseable fails closed.
 *
 * @param location names the store and key in the error (`ledger.db#key`).
 */
export function decodeRecord(text: string, location: string): TransitionRecord {
  const compact = text.startsWith(COMPACT_RECORD_TAG);
  let parsed: unknown;
  try {
    parsed = JSON.parse(compact ? text.slice(COMPACT_RECORD_TAG.length) : text);
  } catch (cause) {
    throw new LedgerStorageCorruptError(location, 'the stored record is not valid JSON', { cause });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new LedgerStorageCorruptError(location, 'the stored record is not an object');
  }
  const record = compact ? expanded(parsed) : (parsed as Partial<Record<keyof TransitionRecord, unknown>>);
  if (typeof record.key !== 'string' || typeof record.version !== 'number') {
    throw new LedgerStorageCorruptError(location, 'the stored record has no key or version');
  }
  // A record written before the decision protocol has none; one that has a decision must hold one.
  if (record.decision !== undefined) {
    const problem = decisionShapeProblem(record.decision);
    if (problem !== null) throw new LedgerStorageCorruptError(location, `the stored decision is malformed: ${problem}`);
  }
  return record as unknown as TransitionRecord;
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
