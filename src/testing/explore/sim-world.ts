/**
 * One simulated world for the interleaving explorer: a clock that moves only when told, timers per
 * worker, and yield points where a worker waits until the scheduler lets it go.
 *
 * Every storage operation and every provider effect of a worker is a yield point. Between two
 * decisions the world settles: the microtasks and immediates of every released worker run until
 * each one is parked at a point, asleep on the clock, or done. Nothing else moves time, so a
 * schedule (the list of decisions) replays exactly.
 */
import type { Clock } from '../../core/clock.js';

/** A worker parked at a yield point. */
export interface ParkedPoint {
  readonly id: number;
  readonly worker: string;
  readonly label: string;
}

interface Parked extends ParkedPoint {
  readonly resume: () => void;
}

interface Timer {
  readonly until: number;
  readonly seq: number;
  readonly worker: string;
  readonly fire: () => void;
}

/** The world one schedule runs in. */
export interface SimWorld {
  now(): number;
  /** Park `worker` until {@link SimWorld.resume} picks this point; a crashed worker never resumes. */
  point(worker: string, label: string): Promise<void>;
  /** The clock `worker` sees: shared time, its own timers (dropped when it crashes). */
  clockFor(worker: string): Clock;
  /** The parked points, in a stable order. */
  parked(): readonly ParkedPoint[];
  resume(id: number): void;
  /** Stop `worker` for good: its parked points and timers are dropped, as by a `SIGKILL`. */
  crash(worker: string): void;
  readonly crashed: ReadonlySet<string>;
  /** Move time forward by `ms`, firing due timers. */
  advance(ms: number): void;
  /** Move time to the earliest timer and fire it; false when no timer is pending. */
  fireNextTimer(): boolean;
  /** Count something that happened, so {@link SimWorld.settle} waits for it to play out. */
  touch(): void;
  /** Let every released worker run until the world is quiet again. */
  settle(): Promise<void>;
}

/** Create an empty world at time 0. */
export function createSimWorld(): SimWorld {
  let now = 0;
  let nextId = 0;
  let seq = 0;
  let activity = 0;
  const parked = new Map<number, Parked>();
  const timers: Timer[] = [];
  const crashed = new Set<string>();

  function addTimer(worker: string, ms: number, fire: () => void): Timer {
    activity += 1;
    seq += 1;
    const timer = { until: now + Math.max(0, ms), seq, worker, fire };
    timers.push(timer);
    return timer;
  }

  function dropTimer(timer: Timer): void {
    const index = timers.indexOf(timer);
    if (index >= 0) timers.splice(index, 1);
  }

  function fireDue(): void {
    for (;;) {
      const due = timers.filter((timer) => timer.until <= now).sort((a, b) => a.until - b.until || a.seq - b.seq)[0];
      if (due === undefined) return;
      dropTimer(due);
      activity += 1;
      due.fire();
    }
  }

  function clockFor(worker: string): Clock {
    return {
      now: () => now,
      sleep(ms, signal) {
        return new Promise((resolve, reject) => {
          if (crashed.has(worker)) return;
          if (signal?.aborted) {
            reject(signal.reason);
            return;
          }
          const onAbort = (): void => {
            dropTimer(timer);
            activity += 1;
            reject(signal?.reason);
          };
          const timer = addTimer(worker, ms, () => {
            signal?.removeEventListener('abort', onAbort);
            resolve();
          });
          signal?.addEventListener('abort', onAbort, { once: true });
        });
      },
      schedule(ms, fn) {
        if (crashed.has(worker)) return () => {};
        const timer = addTimer(worker, ms, fn);
        return () => dropTimer(timer);
      },
    };
  }

  return {
    now: () => now,
    point(worker, label) {
      activity += 1;
      if (crashed.has(worker)) return new Promise<void>(() => {});
      return new Promise<void>((resolve) => {
        nextId += 1;
        parked.set(nextId, { id: nextId, worker, label, resume: resolve });
      });
    },
    clockFor,
    parked: () =>
      [...parked.values()]
        .sort((a, b) => a.worker.localeCompare(b.worker) || a.id - b.id)
        .map(({ id, worker, label }) => ({ id, worker, label })),
    resume(id) {
      const point = parked.get(id);
      if (point === undefined) throw new Error(`No parked point ${id}`);
      parked.delete(id);
      activity += 1;
      point.resume();
    },
    crash(worker) {
      crashed.add(worker);
      activity += 1;
      for (const [id, point] of parked) if (point.worker === worker) parked.delete(id);
      for (const timer of timers.filter((t) => t.worker === worker)) dropTimer(timer);
    },
    crashed,
    advance(ms) {
      now += ms;
      fireDue();
    },
    fireNextTimer() {
      const next = [...timers].sort((a, b) => a.until - b.until || a.seq - b.seq)[0];
      if (next === undefined) return false;
      now = Math.max(now, next.until);
      fireDue();
      return true;
    },
    touch() {
      activity += 1;
    },
    async settle() {
      for (;;) {
        const before = activity;
        await new Promise<void>((resolve) => setImmediate(resolve));
        if (activity === before) return;
      }
    },
  };
}
