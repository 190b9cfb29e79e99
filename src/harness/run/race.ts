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

/** The reason a deadline gives: `<what> did not finish within <ms> ms`. */
export class DeadlineExceededError extends Error {
  constructor(what: string, ms: number) {
    super(`${what} did not finish within ${ms} ms`);
  }
}

/** What {@link withinDeadline} needs of the run: its clock, the caller's signal and the run's timeout. */
export interface DeadlineScope {
  readonly clock: Clock;
  readonly signal: AbortSignal | undefined;
  readonly runTimeout: AbortSignal;
}

/** How bounded work ended when it did not succeed (the caller's abort and the run's timeout never end up here). */
export interface BoundedFailure {
  /** True when the work's own deadline fired. */
  readonly timedOut: boolean;
  readonly error: unknown;
  /** The error's message, for a note to the model. */
  readonly reason: string;
}

/**
 * Run `work` under its own deadline of `ms` on the run's clock, raced against the caller's signal
 * and the run's timeout. Those two pass through unchanged, as rejections with their own reasons;
 * any other failure (the deadline included) resolves as a {@link BoundedFailure}.
 */
export async function withinDeadline<T>(
  run: DeadlineScope,
  ms: number,
  timeoutReason: () => unknown,
  work: (timeoutSignal: AbortSignal) => T | Promise<T>,
): Promise<{ readonly ok: true; readonly value: T } | ({ readonly ok: false } & BoundedFailure)> {
  const deadline = startDeadline(run.clock, ms, timeoutReason);
  const timeoutSignal = AbortSignal.any([run.runTimeout, deadline.signal]);
  try {
    const value = await raceSignals(
      Promise.resolve().then(() => work(timeoutSignal)),
      [run.signal, timeoutSignal],
    );
    return { ok: true, value };
  } catch (error) {
    if (run.signal?.aborted) throw run.signal.reason;
    if (run.runTimeout.aborted) throw run.runTimeout.reason;
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, timedOut: deadline.signal.aborted, error, reason };
  } finally {
    deadline.cancel();
  }
}
