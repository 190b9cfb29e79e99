/**
 * The interleaving explorer: every schedule of 2–3 workers on one transition, to a bounded depth,
 * with crashes, lease expiries and operator releases inserted at each point; seeded random
 * schedules beyond it. Each schedule's history goes through the history checker.
 *
 * Exploration is stateless (as in CHESS or a systematic concurrency tester): a schedule is the list
 * of indices taken at its branching points; the explorer runs a prefix, extends it with the first
 * choice up to the depth bound (and seeded random choices past it), then backtracks to the deepest
 * branching point with an untried choice. The same options and seed explore the same schedules.
 */
import { arrayArgument, checkOptions, recordArgument } from '../../invalid-argument.js';
import { integerOption } from '../../option-checks.js';
import type { SideEffectClass } from '../../records/envelope.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';
import { formatAnomalies, type HistoryAnomaly } from '../history/check-history.js';
import { type ExploreFaults, runSchedule, type ScheduleRun, type ScheduleSetup } from './run-schedule.js';

/** Options of {@link exploreInterleavings}. */
export interface ExploreOptions {
  /** Workers calling the same transition. Default 2; 3 reaches races between two redispatches. */
  readonly workers?: number;
  /** Default `non_idempotent_mutate` (a payment without a provider key). */
  readonly sideEffectClass?: SideEffectClass | string;
  /** Branching points explored exhaustively. Default 6. */
  readonly depth?: number;
  /** Seeded random schedules after the exhaustive part. Default 0. */
  readonly randomSchedules?: number;
  /** Seed of the random choices. Default 1. */
  readonly seed?: number;
  /** Faults per schedule (each at most this many times). Default one of each. */
  readonly faults?: ExploreFaults;
  /** Lease length in simulated ms. Default 1 000. */
  readonly leaseTtlMs?: number;
  /** Wraps the fresh memory store of every schedule, e.g. to seed a bug. */
  readonly storage?: (base: LedgerStorage) => LedgerStorage;
  /** Stop the exhaustive part after this many schedules. Default 100 000. */
  readonly maxSchedules?: number;
  /** Stop at the first failing schedule. Default false. */
  readonly stopOnFailure?: boolean;
}

/** A schedule that broke an invariant, with what it takes to see and replay it. */
export interface FailingSchedule {
  /** Every step, readable. */
  readonly trace: readonly string[];
  /** Pass to {@link replaySchedule} to run it again. */
  readonly decisions: readonly number[];
  readonly anomalies: readonly HistoryAnomaly[];
  readonly stuck: boolean;
}

/** What {@link exploreInterleavings} explored and found. */
export interface ExploreReport {
  readonly schedules: number;
  /** True when every schedule up to the depth bound was run. */
  readonly exhaustive: boolean;
  readonly randomSchedules: number;
  /** Calls made and effects run over all schedules. */
  readonly operations: number;
  readonly effects: number;
  readonly failures: number;
  /** The failing schedule with the fewest steps, or null. */
  readonly shortestFailing: FailingSchedule | null;
}

function positiveInteger(name: string, value: number | undefined, fallback: number, min = 1): number {
  return value === undefined ? fallback : integerOption(name, value, min);
}

/** A small seeded generator (mulberry32): reproducible across runs and platforms. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

function setupOf(options: ExploreOptions): ScheduleSetup {
  const faults = options.faults ?? {};
  return {
    workers: positiveInteger('workers', options.workers, 2),
    sideEffectClass: options.sideEffectClass ?? 'non_idempotent_mutate',
    faults: {
      crash: positiveInteger('faults.crash', faults.crash, 1, 0),
      leaseExpiry: positiveInteger('faults.leaseExpiry', faults.leaseExpiry, 1, 0),
      release: positiveInteger('faults.release', faults.release, 1, 0),
    },
    leaseTtlMs: positiveInteger('leaseTtlMs', options.leaseTtlMs, 1_000),
    ...(options.storage === undefined ? {} : { storage: options.storage }),
    maxSteps: 2_000,
  };
}

function failing(run: ScheduleRun): FailingSchedule | null {
  if (run.check.ok && !run.stuck) return null;
  return {
    trace: run.trace,
    decisions: run.decisions.map((d) => d.index),
    anomalies: run.check.anomalies,
    stuck: run.stuck,
  };
}

/**
 * Explore the interleavings of workers on one transition and check every history.
 *
 * @example
 * const report = await exploreInterleavings({ workers: 3, depth: 7, randomSchedules: 500, seed: 7 });
 * if (report.shortestFailing) console.error(formatSchedule(report.shortestFailing));
 */
export async function exploreInterleavings(options: ExploreOptions = {}): Promise<ExploreReport> {
  checkOptions('exploreInterleavings', options);
  const setup = setupOf(options);
  const depth = positiveInteger('depth', options.depth, 6, 0);
  const randomCount = positiveInteger('randomSchedules', options.randomSchedules, 0, 0);
  const seed = positiveInteger('seed', options.seed, 1, 0);
  const maxSchedules = positiveInteger('maxSchedules', options.maxSchedules, 100_000);
  let schedules = 0;
  let operations = 0;
  let effects = 0;
  let failures = 0;
  let shortest: FailingSchedule | null = null;

  const note = (run: ScheduleRun): boolean => {
    schedules += 1;
    operations += run.check.stats.operations;
    effects += run.check.stats.effects;
    const failed = failing(run);
    if (failed === null) return false;
    failures += 1;
    if (shortest === null || failed.trace.length < shortest.trace.length) shortest = failed;
    return options.stopOnFailure === true;
  };

  // Exhaustive to `depth`; past it, a seeded random tail per schedule.
  let prefix: number[] = [];
  let exhaustive = false;
  for (;;) {
    if (schedules >= maxSchedules) break;
    const random = seeded(seed * 1_000_003 + schedules);
    const fixed = prefix;
    const run = await runSchedule(setup, (choices, at) =>
      at < fixed.length ? (fixed[at] ?? 0) : at < depth ? 0 : Math.floor(random() * choices.length),
    );
    if (note(run)) break;
    const bounded = run.decisions.slice(0, depth);
    let next = bounded.length - 1;
    while (
      next >= 0 &&
      (bounded[next] as { index: number; count: number }).index >= (bounded[next] as { count: number }).count - 1
    )
      next -= 1;
    if (next < 0) {
      exhaustive = true;
      break;
    }
    prefix = [...bounded.slice(0, next).map((d) => d.index), (bounded[next] as { index: number }).index + 1];
  }

  let randomRun = 0;
  const stopped = options.stopOnFailure === true && failures > 0;
  for (; !stopped && randomRun < randomCount; randomRun += 1) {
    const random = seeded(seed * 7_919 + randomRun + 1);
    if (note(await runSchedule(setup, (choices) => Math.floor(random() * choices.length)))) break;
  }

  return {
    schedules,
    exhaustive,
    randomSchedules: randomRun,
    operations,
    effects,
    failures,
    shortestFailing: shortest,
  };
}

/** Run one schedule again from its decisions (as a {@link FailingSchedule} reports them). */
export async function replaySchedule(options: ExploreOptions, decisions: readonly number[]): Promise<FailingSchedule> {
  checkOptions('replaySchedule', options, false);
  arrayArgument('replaySchedule', 'decisions', decisions);
  const run = await runSchedule(setupOf(options), (_choices, at) => decisions[at] ?? 0);
  return {
    trace: run.trace,
    decisions: run.decisions.map((d) => d.index),
    anomalies: run.check.anomalies,
    stuck: run.stuck,
  };
}

/** A readable failing schedule: its numbered steps, then what broke. */
export function formatSchedule(schedule: FailingSchedule): string {
  recordArgument('formatSchedule', 'schedule', schedule, ['trace', 'anomalies', 'decisions']);
  arrayArgument('formatSchedule', 'schedule.trace', schedule.trace);
  arrayArgument('formatSchedule', 'schedule.anomalies', schedule.anomalies);
  arrayArgument('formatSchedule', 'schedule.decisions', schedule.decisions);
  const steps = schedule.trace.map((step, i) => `${String(i + 1).padStart(3)}. ${step}`);
  const broke = schedule.anomalies.length > 0 ? formatAnomalies(schedule.anomalies) : '';
  return [
    `Schedule (${schedule.trace.length} steps; decisions [${schedule.decisions.join(', ')}]):`,
    ...steps,
    ...(schedule.stuck ? ['The schedule did not finish within the step limit'] : []),
    broke,
  ]
    .filter((line) => line !== '')
    .join('\n');
}
