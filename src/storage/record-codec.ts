/**
 * Shared helpers for drivers: record (de)serialisation and list cursors.
 */
import { LedgerStorageCorruptError } from '../errors.js';
import { decisionShapeProblem, type TransitionDecision } from '../records/decision.js';
import type { TransitionRecord } from '../records/transition-record.js';
import { DEFAULT_LIST_LIMIT, type ListQuery, MAX_LIST_LIMIT } from './ledger-storage.js';

/**
 * The tag that opens a record stored in the compact form (format 3): a JSON array of the record's
 * members in the order of {@link STORED_MEMBERS}, then one object of the members a record may lack.
 * A record stored before it is plain JSON (it opens with `{`) or the keyed form of {@link KEYED_RECORD_TAG};
 * an earlier version of hyphae refuses a tagged one as corrupt, so a store shared with one fails
 * closed rather than misread.
 */
export const COMPACT_RECORD_TAG = '~3';

/** The tag of the keyed compact form (format 2): the JSON object of the record without its null members. Read, never written. */
export const KEYED_RECORD_TAG = '~2';

/**
 * The members every record holds, in the order the compact form writes them. The list is part of the
 * stored format: a member is never moved or removed, and one added later goes in the trailing object.
 */
const MEMBERS = [
  'key',
  'kind',
  'tool',
  'agentId',
  'policyVersion',
  'scope',
  'ticket',
  'ticketKey',
  'argsFingerprint',
  'sideEffectClass',
  'retryPermission',
  'spendability',
  'outcome',
  'boundary',
  'owner',
  'fence',
  'version',
  'leaseUntil',
  'lastHeartbeatAt',
  'attempts',
  'error',
  'externalOperationRef',
  'providerIdempotencyKey',
  'firstAttemptAt',
  'operatorResolution',
  'receiptRef',
  'createdAt',
  'updatedAt',
  'completedAt',
] as const satisfies readonly (keyof TransitionRecord)[];

/** {@link MEMBERS}, for the tests and tools that read the stored form. */
export const STORED_MEMBERS: readonly (keyof TransitionRecord)[] = MEMBERS;

/** A member of {@link STORED_MEMBERS}. */
type StoredMember = (typeof MEMBERS)[number];

/** The members a record may lack; the compact form keeps them, when present, in its trailing object. */
type OptionalMember = Exclude<keyof TransitionRecord, StoredMember>;

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

/**
 * The trailing object of the compact form: every optional member, a decision written short. JSON
 * leaves out the ones that are absent (undefined); the type makes a member added later fail to
 * compile here until it is written.
 */
function trailingOf(r: TransitionRecord): { readonly [K in OptionalMember]: unknown } {
  return {
    result: r.result,
    workerDeath: r.workerDeath,
    decision: shortDecision(r.decision),
    refusedTransition: r.refusedTransition,
  };
}

/**
 * Serialise a record for storage, in the compact form: {@link COMPACT_RECORD_TAG}, then one JSON
 * array of the members of {@link STORED_MEMBERS} in that order (an absent one is written null), then
 * an object of the optional members present (a decision of the ledger alone written short). A first
 * claim is about half the size of the record's JSON.
 */
export function encodeRecord(r: TransitionRecord): string {
  return (
    COMPACT_RECORD_TAG +
    JSON.stringify([
      r.key,
      r.kind,
      r.tool,
      r.agentId,
      r.policyVersion,
      r.scope,
      r.ticket,
      r.ticketKey,
      r.argsFingerprint,
      r.sideEffectClass,
      r.retryPermission,
      r.spendability,
      r.outcome,
      r.boundary,
      r.owner,
      r.fence,
      r.version,
      r.leaseUntil,
      r.lastHeartbeatAt,
      r.attempts,
      r.error,
      r.externalOperationRef,
      r.providerIdempotencyKey,
      r.firstAttemptAt,
      r.operatorResolution,
      r.receiptRef,
      r.createdAt,
      r.updatedAt,
      r.completedAt,
      trailingOf(r),
    ])
  );
}

/** A record read in the compact form; undefined when the array is not one. */
function fromCompact(v: unknown): Record<string, unknown> | undefined {
  if (!Array.isArray(v) || v.length !== STORED_MEMBERS.length + 1) return undefined;
  const trailing: unknown = v[STORED_MEMBERS.length];
  if (trailing === null || typeof trailing !== 'object' || Array.isArray(trailing)) return undefined;
  // One literal (in the order of STORED_MEMBERS), so every record read has the same shape.
  const record: { [K in StoredMember]: unknown } & Record<string, unknown> = {
    key: v[0],
    kind: v[1],
    tool: v[2],
    agentId: v[3],
    policyVersion: v[4],
    scope: v[5],
    ticket: v[6],
    ticketKey: v[7],
    argsFingerprint: v[8],
    sideEffectClass: v[9],
    retryPermission: v[10],
    spendability: v[11],
    outcome: v[12],
    boundary: v[13],
    owner: v[14],
    fence: v[15],
    version: v[16],
    leaseUntil: v[17],
    lastHeartbeatAt: v[18],
    attempts: v[19],
    error: v[20],
    externalOperationRef: v[21],
    providerIdempotencyKey: v[22],
    firstAttemptAt: v[23],
    operatorResolution: v[24],
    receiptRef: v[25],
    createdAt: v[26],
    updatedAt: v[27],
    completedAt: v[28],
  };
  for (const name in trailing) {
    const value = (trailing as Record<string, unknown>)[name];
    record[name] = name === 'decision' ? longDecision(value) : value;
  }
  return record;
}

/** A record read in the keyed compact form, with its null members back and its decision written out. */
function fromKeyed(p: Partial<Record<keyof TransitionRecord, unknown>>): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const name of STORED_MEMBERS) record[name] = p[name];
  for (const name of NULLABLE_MEMBERS) record[name] ??= null;
  // Members a record may lack stay absent; a member of no known name is kept, never dropped.
  for (const name in p) {
    if (!(name in record))
      record[name] = name === 'decision' ? longDecision(p[name]) : p[name as keyof TransitionRecord];
  }
  return record;
}

/** The members the keyed form leaves out when null. */
const NULLABLE_MEMBERS = [
  'ticket',
  'ticketKey',
  'owner',
  'leaseUntil',
  'lastHeartbeatAt',
  'error',
  'externalOperationRef',
  'providerIdempotencyKey',
  'operatorResolution',
  'receiptRef',
  'completedAt',
] as const satisfies readonly StoredMember[];

/**
 * Parse a stored record, compact or plain JSON; anything unparseable fails closed.
 *
 * @param location names the store and key in the error (`ledger.db#key`).
 */
export function decodeRecord(text: string, location: string): TransitionRecord {
  const form = text.startsWith(COMPACT_RECORD_TAG) ? 3 : text.startsWith(KEYED_RECORD_TAG) ? 2 : 1;
  let parsed: unknown;
  try {
    parsed = JSON.parse(form === 1 ? text : text.slice((form === 3 ? COMPACT_RECORD_TAG : KEYED_RECORD_TAG).length));
  } catch (cause) {
    throw new LedgerStorageCorruptError(location, 'the stored record is not valid JSON', { cause });
  }
  let record: Partial<Record<keyof TransitionRecord, unknown>> | undefined;
  if (form === 3) {
    record = fromCompact(parsed);
    if (record === undefined)
      throw new LedgerStorageCorruptError(
        location,
        `the stored record is not an array of ${STORED_MEMBERS.length + 1} members`,
      );
  } else {
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new LedgerStorageCorruptError(location, 'the stored record is not an object');
    }
    record = form === 2 ? fromKeyed(parsed) : (parsed as Partial<Record<keyof TransitionRecord, unknown>>);
  }
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
