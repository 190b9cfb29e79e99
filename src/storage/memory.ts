/**
 * In-memory ledger storage: atomic within one event loop, lost with the process.
 */

import { deepFreeze } from '../core/deep-freeze.js';
import type { TransitionRecord } from '../records/transition-record.js';
import type { CreateResult, LedgerStorage, ListPage, ListQuery } from './ledger-storage.js';
import { decodeCursor, encodeCursor, isAfterPosition, listLimit, listOutcomes } from './record-codec.js';

/**
 * Create an in-memory store, for tests and single-process development.
 *
 * It is honest about what it is: `crossProcess: false`, `durable: false`; the production profile
 * refuses it for side-effecting tools.
 *
 * @example
 * const ledger = createLedger({ storage: createMemoryStorage(), agentId: 'demo', policyVersion: '1' });
 */
export function createMemoryStorage(): LedgerStorage {
  const records = new Map<string, TransitionRecord>();
  const tickets = new Map<string, string>();
  let closed = false;

  function assertOpen(): void {
    if (closed) throw new Error('Memory ledger storage is closed');
  }

  // Records are copied on the way in and stored deep-frozen, so they can be handed out without a
  // copy and no caller can change stored state by reference. The copy has the stored form the
  // durable drivers give (the JSON form: undefined members dropped).

  return {
    capabilities: Object.freeze({ name: 'memory', crossProcess: false, durable: false }),

    async get(key) {
      assertOpen();
      return records.get(key) ?? null;
    },

    async create(record): Promise<CreateResult> {
      assertOpen();
      const existing = records.get(record.key);
      if (existing !== undefined) return { created: false, conflict: 'key', record: existing };
      if (record.ticketKey !== null) {
        const holder = tickets.get(record.ticketKey);
        const holderRecord = holder === undefined ? undefined : records.get(holder);
        if (holderRecord !== undefined) return { created: false, conflict: 'ticket', record: holderRecord };
        tickets.set(record.ticketKey, record.key);
      }
      const stored = frozenRecord(record, null);
      records.set(record.key, stored);
      return { created: true, record: stored };
    },

    async update(key, expectedVersion, next) {
      assertOpen();
      const current = records.get(key);
      if (current === undefined || current.version !== expectedVersion) return false;
      records.set(key, frozenRecord(next, current));
      return true;
    },

    async findByTicket(ticketKey) {
      assertOpen();
      const key = tickets.get(ticketKey);
      return (key === undefined ? undefined : records.get(key)) ?? null;
    },

    async list(query: ListQuery = {}): Promise<ListPage> {
      assertOpen();
      const limit = listLimit(query);
      const outcomes = listOutcomes(query);
      const after = query.cursor === undefined ? null : decodeCursor(query.cursor);
      const matching = [...records.values()]
        .filter(
          (r) =>
            (outcomes.length === 0 || outcomes.includes(r.outcome)) &&
            (query.tool === undefined || r.tool === query.tool) &&
            (query.kind === undefined || r.kind === query.kind) &&
            (query.updatedFrom === undefined || r.updatedAt >= query.updatedFrom) &&
            (query.updatedTo === undefined || r.updatedAt < query.updatedTo) &&
            (after === null || isAfterPosition(r, after)),
        )
        .sort((a, b) => b.updatedAt - a.updatedAt || (a.key < b.key ? 1 : a.key > b.key ? -1 : 0));
      const page = matching.slice(0, limit);
      const last = page.at(-1);
      return {
        records: page,
        nextCursor: matching.length > limit && last !== undefined ? encodeCursor(last) : null,
      };
    },

    async close() {
      closed = true;
    },
  };
}

const NOT_PLAIN = Symbol('not plain JSON');

/**
 * A deep-frozen copy of a record in its stored form: the record's own fields only, in a fixed shape
 * (which also keeps freezing cheap), undefined members dropped. Over `current` (an update), its
 * ticket entry is kept, and a member that is `current`'s own stored copy is kept without a copy.
 */
function frozenRecord(r: TransitionRecord, current: TransitionRecord | null): TransitionRecord {
  const copyOf = <T>(value: T, stored: T | undefined): T =>
    current !== null && value === stored ? value : (frozenJsonCopy(value) as T);
  const out: { -readonly [K in keyof TransitionRecord]: TransitionRecord[K] } = {
    key: r.key,
    kind: r.kind,
    tool: r.tool,
    agentId: r.agentId,
    policyVersion: r.policyVersion,
    scope: copyOf(r.scope, current?.scope),
    ticket: r.ticket,
    // The ticket index entry belongs to the record that first claimed it; updates never move it.
    ticketKey: current === null ? r.ticketKey : current.ticketKey,
    argsFingerprint: r.argsFingerprint,
    sideEffectClass: r.sideEffectClass,
    retryPermission: r.retryPermission,
    spendability: r.spendability,
    outcome: r.outcome,
    boundary: r.boundary,
    owner: r.owner,
    fence: r.fence,
    version: r.version,
    leaseUntil: r.leaseUntil,
    lastHeartbeatAt: r.lastHeartbeatAt,
    attempts: r.attempts,
    error: copyOf(r.error, current?.error),
    externalOperationRef: r.externalOperationRef,
    providerIdempotencyKey: r.providerIdempotencyKey,
    firstAttemptAt: r.firstAttemptAt,
    operatorResolution: copyOf(r.operatorResolution, current?.operatorResolution),
    receiptRef: r.receiptRef,
    createdAt: r.createdAt,
    updatedAt: r.updatedAt,
    completedAt: r.completedAt,
  };
  if (r.result !== undefined) out.result = copyOf(r.result, current?.result);
  if (r.decision !== undefined) out.decision = copyOf(r.decision, current?.decision);
  if (r.workerDeath !== undefined) out.workerDeath = copyOf(r.workerDeath, current?.workerDeath);
  if (r.refusedTransition !== undefined) out.refusedTransition = r.refusedTransition;
  return Object.freeze(out);
}

/**
 * A deep-frozen copy of a JSON value in its JSON form; a value that is already one (a decision the
 * ledger froze, a copy this store made) is shared as it is, since nobody can change it.
 */
function frozenJsonCopy(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (isFrozenJson(value, 0)) return value;
  try {
    return plainCopy(value, 0);
  } catch (error) {
    if (error !== NOT_PLAIN) throw error;
    // Dates, `toJSON`, class instances, non-finite numbers: JSON itself decides their form.
    return deepFreeze(JSON.parse(JSON.stringify(value)));
  }
}

/**
 * True when `value` is frozen plain JSON all the way down, already in the form {@link plainCopy}
 * would give it: frozen arrays without holes or undefined members, frozen objects of the plain
 * prototype without undefined members, strings, booleans, finite numbers and null. It allocates
 * nothing.
 */
function isFrozenJson(value: unknown, depth: number): boolean {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value !== 'object' || depth > 64 || !Object.isFrozen(value)) return false;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      if (!(i in value) || !isFrozenJson(value[i], depth + 1)) return false;
    }
    return true;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) return false;
  for (const key in value) {
    const member = (value as Record<string, unknown>)[key];
    if (member === undefined || !isFrozenJson(member, depth + 1)) return false;
  }
  return true;
}

function plainCopy(value: unknown, depth: number): unknown {
  if (typeof value !== 'object') {
    if (typeof value === 'string' || typeof value === 'boolean') return value;
    if (typeof value === 'number' && Number.isFinite(value)) return value;
    throw NOT_PLAIN;
  }
  if (value === null) return value;
  if (depth > 64) throw NOT_PLAIN;
  let out: unknown[] | Record<string, unknown>;
  if (Array.isArray(value)) {
    out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) {
      const member = value[i];
      out[i] = member === undefined ? null : plainCopy(member, depth + 1);
    }
  } else {
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) throw NOT_PLAIN;
    // Built member by member from `{}`: objects of one shape then share their frozen shape.
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      const member = (value as Record<string, unknown>)[key];
      if (member !== undefined) copy[key] = plainCopy(member, depth + 1);
    }
    out = copy;
  }
  return Object.freeze(out);
}
