/**
 * In-process wake-ups for callers that poll a transition.
 *
 * A caller that meets a record another owner holds polls it with backoff (`pollIntervalMs`
 * doubling to `pollMaxIntervalMs`). When that owner runs in the same process over the same storage
 * object, the write that settles or frees the record wakes its pollers at once instead of at their
 * next poll. The woken poller reads the record again and applies the gate as it would after a timed
 * poll: a wake-up only shortens a wait, it decides nothing. Pollers in other processes, or over
 * another storage object, keep polling.
 */
import type { Clock } from '../core/clock.js';
import type { LedgerStorage } from '../storage/ledger-storage.js';

type Wake = () => void;

/** Pollers per storage object, per record key. */
const watchers = new WeakMap<LedgerStorage, Map<string, Set<Wake>>>();

/** The reason a wait was cut short by {@link announceChange}. */
const WOKEN = Symbol('transition changed');

function watch(storage: LedgerStorage, key: string, wake: Wake): () => void {
  let byKey = watchers.get(storage);
  if (byKey === undefined) {
    byKey = new Map();
    watchers.set(storage, byKey);
  }
  let set = byKey.get(key);
  if (set === undefined) {
    set = new Set();
    byKey.set(key, set);
  }
  set.add(wake);
  const registered = set;
  const registry = byKey;
  return () => {
    registered.delete(wake);
    if (registered.size === 0 && registry.get(key) === registered) registry.delete(key);
  };
}

/** Wake this process's pollers of `key` on `storage`: the record was written in a way they must see. */
export function announceChange(storage: LedgerStorage, key: string): void {
  const set = watchers.get(storage)?.get(key);
  if (set === undefined) return;
  for (const wake of [...set]) wake();
}

/**
 * Wait up to `ms` on `clock`, or less when the record `key` changes in this process.
 * Rejects with the signal's reason when `signal` aborts, as `clock.sleep` does.
 */
export async function pauseUntilChanged(
  clock: Clock,
  storage: LedgerStorage,
  key: string,
  ms: number,
  signal: AbortSignal | undefined,
): Promise<void> {
  const woken = new AbortController();
  const stop = watch(storage, key, () => woken.abort(WOKEN));
  try {
    await clock.sleep(ms, signal === undefined ? woken.signal : AbortSignal.any([signal, woken.signal]));
  } catch (error) {
    if (error !== WOKEN) throw error;
  } finally {
    stop();
  }
}
