/**
 * Injectable time: every decision takes `now` from a clock so it can be replayed and tested.
 */

/** A source of time and a way to wait. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Resolve after `ms`; reject with the signal's reason when it aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /**
   * Call `fn` once after `ms` unless cancelled first. Optional: without it, callers fall back to
   * `sleep` with an abort signal. It exists because timers on hot paths (a lease renewal armed for
   * every call) should cost a timer, not an AbortController.
   */
  schedule?(ms: number, fn: () => void): () => void;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted', 'AbortError');
}

/** The wall clock and real timers. */
export const systemClock: Clock = Object.freeze({
  now: () => Date.now(),
  schedule(ms: number, fn: () => void): () => void {
    const timer = setTimeout(fn, Math.max(0, ms));
    // A pending renewal must never keep a process alive on its own.
    timer.unref();
    return () => clearTimeout(timer);
  },
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) {
        reject(abortReason(signal));
        return;
      }
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(abortReason(signal as AbortSignal));
      };
      const timer = setTimeout(
        () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        Math.max(0, ms),
      );
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  },
});

/** A clock that moves only when told to; sleepers wake when their deadline is reached. */
export interface ManualClock extends Clock {
  /** Move time forward and wake every sleeper whose deadline has passed. */
  advance(ms: number): void;
  /** Set the time (never backwards) and wake due sleepers. */
  set(now: number): void;
  /** How many sleepers are waiting. */
  readonly pending: number;
}

/**
 * Create a {@link ManualClock} for tests and replays.
 *
 * @example
 * const clock = createManualClock(0);
 * const woke = clock.sleep(100);
 * clock.advance(100); // `woke` resolves
 */
export function createManualClock(start = 0): ManualClock {
  let current = start;
  const sleepers = new Set<{ until: number; wake: () => void }>();

  function wakeDue(): void {
    // Earliest deadline first; the sort is stable, so equal deadlines wake in the order they slept.
    const due = [...sleepers].filter((sleeper) => sleeper.until <= current).sort((a, b) => a.until - b.until);
    for (const sleeper of due) {
      sleepers.delete(sleeper);
      sleeper.wake();
    }
  }

  return {
    now: () => current,
    sleep(ms, signal) {
      return new Promise((resolve, reject) => {
        if (signal?.aborted) {
          reject(abortReason(signal));
          return;
        }
        const sleeper = {
          until: current + Math.max(0, ms),
          wake: () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          },
        };
        const onAbort = (): void => {
          sleepers.delete(sleeper);
          reject(abortReason(signal as AbortSignal));
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        sleepers.add(sleeper);
        wakeDue();
      });
    },
    schedule(ms, fn) {
      const sleeper = { until: current + Math.max(0, ms), wake: fn };
      sleepers.add(sleeper);
      wakeDue();
      return () => {
        sleepers.delete(sleeper);
      };
    },
    advance(ms) {
      if (!Number.isFinite(ms) || ms < 0)
        throw new RangeError(`A manual clock advances by a non-negative number, got \`${ms}\``);
      current += ms;
      wakeDue();
    },
    set(now) {
      current = Math.max(current, now);
      wakeDue();
    },
    get pending() {
      return sleepers.size;
    },
  };
}
