/**
 * Wake-ups for callers that poll a transition.
 *
 * A caller that meets a record another owner holds polls it with backoff (`pollIntervalMs`
 * doubling to `pollMaxIntervalMs`). Two kinds of notice cut a wait short:
 * - in this process, every write of a record wakes the pollers of that record over the same
 *   storage object ({@link announceChange});
 * - across processes, a driver that implements `LedgerStorage.watch` (Redis) tells the pollers of a
 *   record that another client updated it.
 * A woken poller reads the record again and applies the gate as it would after a timed poll: a
 * notice only shortens a wait, it decides nothing, and a missed notice costs one poll interval.
 */
import type { Clock } from '../core/clock.js';
import type { LedgerStorage } from '../storage/ledger-storage.js';

type Wake = () => void;

/** In-process pollers per storage object, per record key. */
const watchers = new WeakMap<LedgerStorage, Map<string, Set<Wake>>>();

/** The reason a pause was cut short by a notice. */
const WOKEN = Symbol('transition changed');

function watchInProcess(storage: LedgerStorage, key: string, wake: Wake): () => void {
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

/**
 * Wake this process's pollers of `key` on `storage`: the ledger calls it after every write of a
 * record (a claim's writes, a takeover, an operator's), as the Redis driver publishes every update.
 */
export function announceChange(storage: LedgerStorage, key: string): void {
  const set = watchers.get(storage)?.get(key);
  if (set === undefined) return;
  for (const wake of [...set]) wake();
}

/** One caller's watch on one record, for the length of its polling. */
export interface TransitionWatch {
  /**
   * Wait up to `ms` on `clock`, or less when a notice arrives (at once when one arrived since the
   * last pause). Rejects with the signal's reason when `signal` aborts, as `clock.sleep` does.
   */
  pause(clock: Clock, ms: number, signal: AbortSignal | undefined): Promise<void>;
  /** Stop watching; safe to call twice. */
  close(): void;
}

/** Start watching `key` on `storage`, in this process and through the driver when it can. */
export function watchTransition(storage: LedgerStorage, key: string): TransitionWatch {
  let noticed = false;
  let pausing: AbortController | null = null;
  const wake = (): void => {
    if (pausing === null) noticed = true;
    else pausing.abort(WOKEN);
  };
  const stops: (() => void)[] = [watchInProcess(storage, key, wake)];
  if (storage.watch !== undefined) {
    try {
      stops.push(storage.watch(key, wake));
    } catch {
      // A driver that cannot watch right now leaves the caller to its timed polls.
    }
  }
  return {
    async pause(clock, ms, signal) {
      if (noticed) {
        noticed = false;
        return;
      }
      const woken = new AbortController();
      pausing = woken;
      try {
        await clock.sleep(ms, signal === undefined ? woken.signal : AbortSignal.any([signal, woken.signal]));
      } catch (error) {
        if (error !== WOKEN) throw error;
      } finally {
        pausing = null;
      }
    },
    close() {
      for (const stop of stops.splice(0)) stop();
    },
  };
}
