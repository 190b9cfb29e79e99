/**
 * A bounded LRU cache with a time-to-live and in-flight sharing: the engine behind `protect`.
 */
import type { Clock } from '../core/clock.js';

/** Counters of one cache. */
export interface CacheStats {
  /** Calls answered from a fresh entry. */
  readonly hits: number;
  /** Calls that ran the tool (no entry, or a stale one). */
  readonly misses: number;
  /** Calls that joined an identical call already in flight instead of running the tool. */
  readonly coalesced: number;
  /** Entries removed to respect `maxEntries`. */
  readonly evictions: number;
  /** Entries currently stored. */
  readonly size: number;
}

interface Entry {
  readonly value: unknown;
  readonly storedAt: number;
}

/** Settings of a {@link TtlCache}. */
export interface TtlCacheSettings {
  readonly ttlMs: number;
  readonly maxEntries: number;
  readonly clock: Clock;
}

/** A cache whose values may be anything, including `null` and `undefined`. */
export interface TtlCache {
  /** The cached value of `key`, or the result of `load` (shared by concurrent callers). */
  fetch<V>(key: string, load: () => Promise<V>): Promise<V>;
  /** Forget `key`; a call in flight for it will not store its result. */
  delete(key: string): void;
  clear(): void;
  stats(): CacheStats;
}

/** Create a {@link TtlCache}. */
export function createTtlCache(settings: TtlCacheSettings): TtlCache {
  const { ttlMs, maxEntries, clock } = settings;
  // Map iteration order is insertion order: re-inserting on a hit makes the first key the least recent.
  const entries = new Map<string, Entry>();
  const inflight = new Map<string, Promise<unknown>>();
  let hits = 0;
  let misses = 0;
  let coalesced = 0;
  let evictions = 0;

  function store(key: string, value: unknown): void {
    entries.delete(key);
    entries.set(key, { value, storedAt: clock.now() });
    while (entries.size > maxEntries) {
      const oldest = entries.keys().next();
      if (oldest.done === true) break;
      entries.delete(oldest.value);
      evictions++;
    }
  }

  return {
    fetch<V>(key: string, load: () => Promise<V>): Promise<V> {
      const entry = entries.get(key);
      if (entry !== undefined) {
        if (clock.now() < entry.storedAt + ttlMs) {
          hits++;
          entries.delete(key);
          entries.set(key, entry);
          return Promise.resolve(entry.value as V);
        }
        entries.delete(key);
      }
      const pending = inflight.get(key);
      if (pending !== undefined) {
        coalesced++;
        return pending as Promise<V>;
      }
      misses++;
      // Timeline of the race this guards: A misses and starts loading v1; the entity changes and
      // `delete(key)` runs; A's load then resolves with v1. Only the promise still registered in
      // `inflight` may store, so A's stale v1 is returned to A's callers but never cached.
      const call: Promise<V> = Promise.resolve()
        .then(load)
        .then(
          (value) => {
            if (inflight.get(key) === call) {
              inflight.delete(key);
              store(key, value);
            }
            return value;
          },
          (error: unknown) => {
            if (inflight.get(key) === call) inflight.delete(key);
            entries.delete(key);
            throw error;
          },
        );
      inflight.set(key, call);
      return call;
    },
    delete(key) {
      entries.delete(key);
      inflight.delete(key);
    },
    clear() {
      entries.clear();
      inflight.clear();
    },
    stats: () => ({ hits, misses, coalesced, evictions, size: entries.size }),
  };
}
