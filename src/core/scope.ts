/**
 * AsyncLocalStorage scopes: values that follow a call through `await` without being passed.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** A typed async-local slot. */
export interface AsyncScope<T> {
  /** The value of the innermost enclosing `run`, or undefined outside one. */
  get(): T | undefined;
  /** Run `fn` with `value` visible to everything it awaits. */
  run<R>(value: T, fn: () => R): R;
}

/**
 * Create an async-local slot.
 *
 * @example
 * const requestId = createAsyncScope<string>();
 * await requestId.run('req_1', async () => requestId.get()); // 'req_1'
 */
export function createAsyncScope<T>(): AsyncScope<T> {
  const storage = new AsyncLocalStorage<T>();
  return {
    get: () => storage.getStore(),
    run: (value, fn) => storage.run(value, fn),
  };
}
