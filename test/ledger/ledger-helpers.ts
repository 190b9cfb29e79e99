/**
 * Shared helpers of the ledger behaviour tests: a ledger over memory storage, deferred promises,
 * a storage wrapper that counts and can fail calls, and a logger that collects what it is told.
 */
import { expect } from 'vitest';
import {
  createLedger,
  createMemoryStorage,
  type Ledger,
  type LedgerLogger,
  type LedgerOptions,
  type LedgerStorage,
  type TransitionRecord,
} from '../../src/index.js';

/** A promise with its resolve and reject exposed. */
export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve: (value: T) => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Let queued promise reactions and due timers run. */
export const tick = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/** Wait (without asserting on time) until `condition` holds. */
export async function until(condition: () => boolean, what = 'condition'): Promise<void> {
  for (let i = 0; i < 5_000; i++) {
    if (condition()) return;
    await tick();
  }
  throw new Error(`Timed out waiting for ${what}`);
}

/** Settle state of a promise, readable synchronously. */
export function track<T>(promise: Promise<T>): { readonly settled: boolean; readonly promise: Promise<T> } {
  const state = { settled: false, promise };
  promise.then(
    () => {
      state.settled = true;
    },
    () => {
      state.settled = true;
    },
  );
  return state;
}

/** A storage whose calls are counted and whose methods can be made to fail. */
export interface InstrumentedStorage extends LedgerStorage {
  readonly calls: Record<'get' | 'create' | 'update', number>;
  /** Make `method` throw this error until cleared with null. */
  fail(method: 'get' | 'create' | 'update', error: Error | null): void;
}

export function instrumentedStorage(inner: LedgerStorage = createMemoryStorage()): InstrumentedStorage {
  const calls = { get: 0, create: 0, update: 0 };
  const failures: Partial<Record<'get' | 'create' | 'update', Error>> = {};
  const check = (method: 'get' | 'create' | 'update'): void => {
    calls[method]++;
    const failure = failures[method];
    if (failure !== undefined) throw failure;
  };
  return {
    capabilities: inner.capabilities,
    calls,
    fail(method, error) {
      if (error === null) delete failures[method];
      else failures[method] = error;
    },
    async get(key) {
      check('get');
      return inner.get(key);
    },
    async create(record) {
      check('create');
      return inner.create(record);
    },
    async update(key, expectedVersion, next) {
      check('update');
      return inner.update(key, expectedVersion, next);
    },
    findByTicket: (key) => inner.findByTicket(key),
    list: (query) => inner.list(query),
    close: () => inner.close(),
  };
}

/** A ledger over fresh memory storage unless the options say otherwise. */
export function newLedger(options: Partial<LedgerOptions> = {}): Ledger {
  return createLedger({ storage: createMemoryStorage(), agentId: 'agent', policyVersion: 'p1', ...options });
}

/** The one record in the ledger (fails the test when there are none or several). */
export async function onlyRecord(ledger: Ledger): Promise<TransitionRecord> {
  const { records } = await ledger.list();
  expect(records).toHaveLength(1);
  const [record] = records;
  if (record === undefined) throw new Error('no record');
  return record;
}

/** A logger that collects its calls. */
export function collectingLogger(): LedgerLogger & { readonly entries: { level: string; message: string }[] } {
  const entries: { level: string; message: string }[] = [];
  return {
    entries,
    debug: (message) => entries.push({ level: 'debug', message }),
    warn: (message) => entries.push({ level: 'warn', message }),
    error: (message) => entries.push({ level: 'error', message }),
  };
}

/** The error a promise rejects with (fails when it resolves). */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the promise to reject');
}
