import assert from 'node:assert/strict';
import { describe, expect, it } from 'vitest';
import type { LedgerStorage } from '../../src/storage/ledger-storage.js';
import { createMemoryStorage } from '../../src/storage/memory.js';
import { describeStorageConformance, makeTestRecord } from '../../src/testing/index.js';

// The conformance suite opens a new client per contender. For memory, a "client" is a handle on one
// shared store (as connections to one server would be); closing a handle leaves the store open.
const shared = createMemoryStorage();

function openHandle(): LedgerStorage {
  let closed = false;
  const live = <T>(operation: () => Promise<T>): Promise<T> =>
    closed ? Promise.reject(new Error('Memory storage handle is closed')) : operation();
  return {
    capabilities: shared.capabilities,
    get: (key) => live(() => shared.get(key)),
    create: (record) => live(() => shared.create(record)),
    update: (key, expectedVersion, next) => live(() => shared.update(key, expectedVersion, next)),
    findByTicket: (ticketKey) => live(() => shared.findByTicket(ticketKey)),
    list: (query) => live(() => shared.list(query)),
    close: async () => {
      closed = true;
    },
  };
}

describeStorageConformance({ name: 'memory', open: openHandle, api: { describe, it } });

describe('memory storage itself', () => {
  it('is honest about what it is', () => {
    expect(createMemoryStorage().capabilities).toEqual({ name: 'memory', crossProcess: false, durable: false });
  });

  it('rejects operations once the store is closed, and closes twice', async () => {
    const storage = createMemoryStorage();
    await storage.close();
    await storage.close();
    await assert.rejects(storage.create(makeTestRecord()));
  });

  it("stores the JSON form, deep-frozen, cut off from the caller's objects", async () => {
    const storage = createMemoryStorage();
    const when = new Date(Date.UTC(2026, 0, 2));
    const scope = { threadId: 't1', runId: undefined };
    const record = {
      ...makeTestRecord({ key: 'k-json' }),
      scope,
      result: { when, list: [1, undefined], gone: undefined },
    };
    const created = await storage.create(record as never);
    scope.threadId = 'changed';
    const stored = await storage.get('k-json');
    expect(stored).toBe(created.record);
    expect(stored?.scope).toEqual({ threadId: 't1' });
    expect(stored?.result).toEqual({ when: when.toISOString(), list: [1, null] });
    expect(Object.isFrozen(stored)).toBe(true);
    expect(Object.isFrozen(stored?.scope)).toBe(true);
    expect(Object.isFrozen((stored?.result as { list?: unknown[] } | undefined)?.list)).toBe(true);

    // An update built by spreading the stored record is stored frozen too, with the change applied.
    const next = { ...(stored as NonNullable<typeof stored>), version: 2, result: { n: Number.NaN, ok: true } };
    expect(await storage.update('k-json', 1, next)).toBe(true);
    const updated = await storage.get('k-json');
    expect(updated?.result).toEqual({ n: null, ok: true });
    expect(updated?.scope).toEqual({ threadId: 't1' });
    expect(Object.isFrozen(updated?.result)).toBe(true);
  });

  it('shares a value that is frozen JSON all the way down, and copies one with anything mutable or not JSON inside', async () => {
    const storage = createMemoryStorage();
    const frozen = Object.freeze({ ok: true, lines: Object.freeze([1, Object.freeze({ n: 2 })]) });
    const shallow = Object.freeze({ ok: true, lines: [1, 2] });
    const holey = Object.freeze([1, undefined]);
    const created = await storage.create({ ...makeTestRecord({ key: 'k-frozen' }), result: frozen });
    const second = await storage.create({ ...makeTestRecord({ key: 'k-shallow' }), result: shallow });
    const third = await storage.create({ ...makeTestRecord({ key: 'k-holey' }), result: holey as never });

    expect(created.record.result).toBe(frozen);
    expect(second.record.result).not.toBe(shallow);
    shallow.lines.push(3);
    expect(second.record.result).toEqual({ ok: true, lines: [1, 2] });
    expect(Object.isFrozen((second.record.result as { lines: unknown[] }).lines)).toBe(true);
    expect(third.record.result).toEqual([1, null]);
  });
});
