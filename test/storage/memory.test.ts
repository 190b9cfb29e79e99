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
});
