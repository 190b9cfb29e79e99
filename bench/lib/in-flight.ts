/**
 * Throughput with a fixed number of calls in flight: `inFlight` workers each await one call and
 * start the next, for a fixed time. Cases run in interleaved rounds, as in `measure.ts`, so drift in
 * the machine lands on every case alike.
 */
import { performance } from 'node:perf_hooks';
import { Histogram } from './histogram.js';
import { collectGarbage, type Op, SETTLE_SHARE, type TimedCase } from './measure.js';

/** Warm-up, measuring time per case, rounds, and the number of calls kept in flight. */
export interface FlightPlan {
  readonly warmupMs: number;
  readonly durationMs: number;
  readonly rounds: number;
  readonly inFlight: number;
}

/** What one case did with `inFlight` calls kept in flight. */
export interface FlightStats {
  readonly calls: number;
  readonly callsPerSecond: number;
  /** Latency of one call while the others are in flight. */
  readonly p50Us: number;
  readonly p99Us: number;
  /** Process CPU time (user + system) per call. */
  readonly cpuUsPerCall: number;
}

/** Where {@link flight} records each call's latency, in µs (a {@link Histogram}, or a list to send elsewhere). */
export interface LatencyRecorder {
  record(us: number): void;
}

/** Keep `inFlight` calls of `op` going for `ms`; the calls completed and the time until the last one ended. */
export async function flight(
  op: Op,
  inFlight: number,
  ms: number,
  histogram: LatencyRecorder | null,
): Promise<{ calls: number; elapsedMs: number }> {
  const started = performance.now();
  const end = started + ms;
  let calls = 0;
  async function worker(): Promise<void> {
    for (;;) {
      const at = performance.now();
      // Awaited even when the op is synchronous, so every worker gets its turn.
      await op();
      const done = performance.now();
      histogram?.record((done - at) * 1000);
      calls++;
      if (done >= end) return;
    }
  }
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { calls, elapsedMs: performance.now() - started };
}

/**
 * Measure `cases` under `plan`; results come back in the order of `cases`.
 *
 * Each round starts with a full collection (so one case's garbage is not collected on another's
 * clock), then keeps the case's calls in flight for {@link SETTLE_SHARE} of a round unmeasured before
 * it measures: with calls in flight on Redis, the first few hundred milliseconds after a forced
 * collection ran at about 1.5× the CPU per call of a warm process.
 */
export async function measureInFlight(cases: readonly TimedCase[], plan: FlightPlan): Promise<FlightStats[]> {
  const runs = cases.map((timed) => ({ timed, histogram: new Histogram(), calls: 0, elapsedMs: 0, cpuUs: 0 }));
  for (const { timed } of runs) await flight(await timed.start(), plan.inFlight, plan.warmupMs, null);
  for (let round = 0; round < plan.rounds; round++) {
    for (const run of runs) {
      collectGarbage();
      const op = await run.timed.start();
      await flight(op, plan.inFlight, (plan.durationMs / plan.rounds) * SETTLE_SHARE, null);
      const cpu = process.cpuUsage();
      const { calls, elapsedMs } = await flight(op, plan.inFlight, plan.durationMs / plan.rounds, run.histogram);
      const spent = process.cpuUsage(cpu);
      run.calls += calls;
      run.elapsedMs += elapsedMs;
      run.cpuUs += spent.user + spent.system;
    }
  }
  return runs.map((run) => {
    const stats = run.histogram.stats();
    return {
      calls: run.calls,
      callsPerSecond: run.calls / (run.elapsedMs / 1000),
      p50Us: stats.p50Us,
      p99Us: stats.p99Us,
      cpuUsPerCall: run.cpuUs / run.calls,
    };
  });
}
