/**
 * A counting proxy around a ledger storage: how many round trips a call makes, and the documents
 * it writes (so a raw baseline can write documents of the same size).
 */
import type { LedgerStorage, TransitionRecord } from '../../src/index.js';
import { encodeRecord } from '../../src/storage/record-codec.js';

/** Storage calls seen since the last reset. */
export interface StorageCalls {
  create: number;
  update: number;
  get: number;
  findByTicket: number;
  /** Every record passed to `create` or `update`, in order, as a durable driver stores it (`encodeRecord`). */
  readonly docs: string[];
}

const COUNTED = new Set(['create', 'update', 'get', 'findByTicket']);

/** Wrap `inner`; `calls` counts what goes through the returned storage until `reset()`. */
export function countingStorage(inner: LedgerStorage): { storage: LedgerStorage; calls: StorageCalls; reset(): void } {
  const calls: StorageCalls = { create: 0, update: 0, get: 0, findByTicket: 0, docs: [] };
  const storage = new Proxy(inner, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof property !== 'string' || !COUNTED.has(property) || typeof value !== 'function') return value;
      const name = property as 'create' | 'update' | 'get' | 'findByTicket';
      return function counted(...args: unknown[]): unknown {
        calls[name]++;
        if (name === 'create') calls.docs.push(encodeRecord(args[0] as TransitionRecord));
        if (name === 'update') calls.docs.push(encodeRecord(args[2] as TransitionRecord));
        return Reflect.apply(value, target, args);
      };
    },
  });
  return {
    storage,
    calls,
    reset() {
      calls.create = 0;
      calls.update = 0;
      calls.get = 0;
      calls.findByTicket = 0;
      calls.docs.length = 0;
    },
  };
}
