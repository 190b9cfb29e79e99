/**
 * Settle work against signals: the first signal to abort wins with its own reason (never
 * wrapped), and the abandoned work can no longer cause an unhandled rejection.
 */
import type { Clock } from '../../core/clock.js';

function ignore(): void {}

/**
 * Resolve or reject with `work`, unless one of `signals` aborts first: then reject with that
 * signal's `reason`, unchanged.
 */
export function raceSignals<T>(work: Promise<T>, signals: readonly (AbortSignal | undefined)[]): Promise<T> {
  const active = signals.filter((signal): signal is AbortSignal => signal !== undefined);
  const aborted = active.find((signal) => signal.aborted);
  if (aborted !== undefined) {
    work.catch(ignore);
    return Promise.reject(aborted.reason);
  }
  if (active.length === 0) return work;
  return new Promise<T>((resolve, reject) => {
    const listeners = active.map((signal) => {
      const onAbort = (): void => {
        cleanup();
        work.catch(ignore);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      return { signal, onAbort };
    });
    function cleanup(): void {
      for (const { signal, onAbort } of listeners) signal.removeEventListener('abort', onAbort);
    }
    work.then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (error: unknown) => {
        cleanup();
        reject(error);
      },
    );
  });
}

/** A timer on the harness's clock that aborts its signal with `reason()` when it fires. */
export interface Deadline {
  readonly signal: AbortSignal;
  /** Stop the timer (the signal then never aborts from it). */
  cancel(): void;
}

/** Start a timer of `ms` on `clock`. */
export function startDeadline(clock: Clock, ms: number, reason: () => unknown): Deadline {
  const fired = new AbortController();
  const stop = new AbortController();
  clock.sleep(ms, stop.signal).then(
    () => fired.abort(reason()),
    () => undefined,
  );
  return { signal: fired.signal, cancel: () => stop.abort() };
}
