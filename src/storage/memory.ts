/**
 * In-memory ledger storage: atomic within one event loop, lost with the process.
 */
import type { TransitionRecord } from '../ledger/transition-record.js';
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
  // copy and no caller can change stored state by reference. The JSON round trip also gives the
  // stored form the durable drivers give (undefined members dropped).
  const copy = (record: TransitionRecord): TransitionRecord => deepFreeze(JSON.parse(JSON.stringify(record)));

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
      const stored = copy(record);
      records.set(record.key, stored);
      return { created: true, record: stored };
    },

    async update(key, expectedVersion, next) {
      assertOpen();
      const current = records.get(key);
      if (current === undefined || current.version !== expectedVersion) return false;
      // The ticket index entry belongs to the record that first claimed it; updates never move it.
      records.set(key, copy({ ...next, ticketKey: current.ticketKey }));
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

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const member of Object.values(value)) deepFreeze(member);
    Object.freeze(value);
  }
  return value;
}
