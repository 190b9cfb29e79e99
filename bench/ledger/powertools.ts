/**
 * hyphae's Redis ledger against `@aws-lambda-powertools/idempotency` 2.35.0 with its cache
 * persistence layer, on the same Redis server: per-call latency (first call, replay), calls per
 * second with 32 in flight, and a 32-way race on one key.
 *
 *   node --import tsx bench/ledger/powertools.ts            # full run (~1 min)
 *   node --import tsx bench/ledger/powertools.ts --quick    # short run (<15 s)
 *
 * Writes bench/results/powertools.{json,md}; bench/aggregate.ts gathers them into bench/RESULTS.md.
 */
import { commandLine, load } from '../lib/area-report.js';
import type { Stats } from '../lib/histogram.js';
import { type FlightPlan, type FlightStats, measureInFlight } from '../lib/in-flight.js';
import { measureCases, type TimedCase } from '../lib/measure.js';
import { type Measured, type PowertoolsReport, type RaceRun, writePowertoolsReport } from '../lib/powertools-report.js';
import { runRace } from '../lib/race.js';
import { hyphaeContenders, powertoolsContenders } from '../lib/race-contenders.js';
import { connectRedis, onBenchRedis } from '../lib/redis-bench-client.js';
import { comparisonPlan, type PowertoolsComparison, powertoolsComparison } from './powertools-cases.js';

const quick = process.argv.includes('--quick');
const plan = comparisonPlan(quick);
const RACE_CALLERS = 32;
/** The calls kept in flight for the throughput rows, through one client. */
const IN_FLIGHT: FlightPlan = { ...plan, inFlight: 32 };
const RACE_ROUNDS = quick ? 10 : 100;
/** Races run with every caller starting in the same tick, then with a random start delay of up to this. */
const RACE_JITTER_MS = [0, 5] as const;

async function measureLatency(comparison: PowertoolsComparison): Promise<PowertoolsReport['latency']> {
  const { hyphae, powertools, hyphaeRaw, powertoolsRaw, writes, commands } = comparison;
  // Interleaved: each library's case next to the other's, then the raw round trips.
  const cases: TimedCase[] = [
    hyphae.call,
    powertools.call,
    hyphae.replay,
    powertools.replay,
    hyphaeRaw.call,
    powertoolsRaw.call,
    hyphaeRaw.replay,
    powertoolsRaw.replay,
  ];
  const stats = await measureCases(cases, plan);
  const measured = (timed: TimedCase): Measured => ({ name: timed.name, stats: stats[cases.indexOf(timed)] as Stats });
  for (const timed of cases) printMeasured(measured(timed));
  return {
    call: {
      hyphae: measured(hyphae.call),
      powertools: measured(powertools.call),
      hyphaeRaw: measured(hyphaeRaw.call),
      powertoolsRaw: measured(powertoolsRaw.call),
    },
    replay: {
      hyphae: measured(hyphae.replay),
      powertools: measured(powertools.replay),
      hyphaeRaw: measured(hyphaeRaw.replay),
      powertoolsRaw: measured(powertoolsRaw.replay),
    },
    roundTrips: {
      hyphae: { call: writes.call.writes + writes.call.reads, replay: writes.replay.writes + writes.replay.reads },
      powertools: { call: commands.call.length, replay: commands.replay.length },
    },
  };
}

async function measureThroughput(comparison: PowertoolsComparison): Promise<PowertoolsReport['inFlight']> {
  const { hyphae, powertools } = comparison;
  const cases: TimedCase[] = [hyphae.call, powertools.call, hyphae.replay, powertools.replay];
  const stats = await measureInFlight(cases, IN_FLIGHT);
  const measured = (timed: TimedCase): FlightStats => stats[cases.indexOf(timed)] as FlightStats;
  for (const timed of cases) {
    const { callsPerSecond, p50Us, cpuUsPerCall } = measured(timed);
    console.log(
      `  ${IN_FLIGHT.inFlight} in flight: ${timed.name.padEnd(64)} ${callsPerSecond.toFixed(0).padStart(7)} calls/s  p50 ${p50Us.toFixed(0).padStart(7)} µs  cpu ${cpuUsPerCall.toFixed(1).padStart(7)} µs/call`,
    );
  }
  return {
    plan: IN_FLIGHT,
    call: { hyphae: measured(hyphae.call), powertools: measured(powertools.call) },
    replay: { hyphae: measured(hyphae.replay), powertools: measured(powertools.replay) },
  };
}

function printMeasured({ name, stats }: Measured): void {
  const f = (value: number): string => value.toFixed(2).padStart(9);
  console.log(
    `  ${name.padEnd(72)} ops ${String(stats.ops).padStart(7)}  p50 ${f(stats.p50Us)}  p99 ${f(stats.p99Us)}  mean ${f(stats.meanUs)}  cpu ${f(stats.cpuUs)} µs`,
  );
}

async function measureRaces(run: string): Promise<RaceRun[]> {
  const clients = await Promise.all(Array.from({ length: RACE_CALLERS }, connectRedis));
  try {
    const races: RaceRun[] = [];
    for (const jitterMs of RACE_JITTER_MS) {
      const prefix = `${run}race-${jitterMs}:`;
      for (const contenders of [hyphaeContenders(clients, prefix), powertoolsContenders(clients, prefix)]) {
        const tally = await runRace(contenders.callers, contenders.log, { rounds: RACE_ROUNDS, jitterMs }).finally(() =>
          contenders.close(),
        );
        console.log(
          `  race ${contenders.library} jitter ${jitterMs} ms: executions ${tally.executions}/${tally.rounds}, results ${tally.results}, errors ${JSON.stringify(tally.errors)}, settle p50 ${tally.settleMsP50.toFixed(1)} ms`,
        );
        races.push({ library: contenders.library, tally });
      }
    }
    return races;
  } finally {
    await Promise.all(clients.map((client) => client.close()));
  }
}

async function main(): Promise<void> {
  const command = commandLine();
  const loadAtStart = load();
  await onBenchRedis('powertools comparison not run', async (client, run) => {
    console.log(`${command}: ${quick ? 'quick' : 'full'} run, ${plan.durationMs} ms per case`);
    const comparison = await powertoolsComparison(client, run);
    const latency = await measureLatency(comparison);
    const inFlight = await measureThroughput(comparison);
    const races = await measureRaces(run);
    const mode = quick ? 'quick' : 'full';
    await writePowertoolsReport({ command, mode, plan, loadAtStart, latency, inFlight, races });
    console.log('wrote bench/results/powertools.json and bench/results/powertools.md');
  });
}

await main();
