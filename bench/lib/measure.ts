/**
 * Timing loops: warm every case up, then run the cases in interleaved rounds (so drift in the
 * machine — a busy disk, a growing table — lands on every case alike) and time every iteration.
 */
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Histogram, type Stats } from './histogram.js';

/** One operation under test. Sync operations (raw SQLite statements) are not awaited. */
export type Op = () => unknown;

/** A measured case; `start` runs before each round (a fresh store, a primed replay) and returns the op. */
export interface TimedCase {
  readonly name: string;
  start(): Op | Promise<Op>;
}

/** How long to warm up and measure each case, and in how many rounds. */
export interface Plan {
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly rounds: number;
}

// A full collection between rounds keeps one case's garbage from being collected on another's clock.
setFlagsFromString('--expose-gc');
/** Run a full garbage collection (V8's `gc`, exposed without needing `--expose-gc` on the command line). */
export const collectGarbage = runInNewContext('gc') as () => void;

/**
 * The share of a round each case runs unmeasured after the full collection that starts it: a forced
 * collection throws away the optimised code whose objects died, and the calls right after one run
 * slower than a warm process's (a server that is not told to collect never pays that).
 */
export const SETTLE_SHARE = 0.5;

/** How a plan's rounds run, for a report's plan line. */
export function roundsText(plan: Plan): string {
  return `${plan.durationMs / 1000} s per case in ${plan.rounds} interleaved rounds, each after a full collection and half a round unmeasured`;
}

async function runFor(op: Op, ms: number, histogram: Histogram | null): Promise<void> {
  const end = performance.now() + ms;
  for (;;) {
    const started = performance.now();
    const pending = op();
    if (pending instanceof Promise) await pending;
    const finished = performance.now();
    histogram?.record((finished - started) * 1000);
    if (finished >= end) return;
  }
}

/** Measure `cases` under `plan`; results come back in the order of `cases`. */
export async function measureCases(cases: readonly TimedCase[], plan: Plan): Promise<Stats[]> {
  const runs = cases.map((timed) => ({ timed, histogram: new Histogram() }));
  for (const { timed } of runs) await runFor(await timed.start(), plan.warmupMs, null);
  for (let round = 0; round < plan.rounds; round++) {
    for (const { timed, histogram } of runs) {
      collectGarbage();
      const op = await timed.start();
      await runFor(op, (plan.durationMs / plan.rounds) * SETTLE_SHARE, null);
      const cpu = process.cpuUsage();
      await runFor(op, plan.durationMs / plan.rounds, histogram);
      const spent = process.cpuUsage(cpu);
      histogram.addCpu(spent.user + spent.system);
    }
  }
  return runs.map(({ histogram }) => histogram.stats());
}
