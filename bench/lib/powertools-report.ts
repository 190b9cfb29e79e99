/**
 * The outputs of the powertools comparison: `bench/results/powertools.json` (figures) and
 * `bench/results/powertools.md`.
 */
import { type Figure, figure, headerLines, us, writeArea } from './area-report.js';
import type { Stats } from './histogram.js';
import type { FlightPlan, FlightStats } from './in-flight.js';
import { type Column, markdownTable } from './markdown-table.js';
import { type Plan, roundsText } from './measure.js';
import type { RaceTally } from './race.js';

/** One measured case. */
export interface Measured {
  readonly name: string;
  readonly stats: Stats;
}

/** One kind of call (first call or replay) by both libraries, and the raw round trips of each. */
export interface LatencyPair {
  readonly hyphae: Measured;
  readonly powertools: Measured;
  readonly hyphaeRaw: Measured;
  readonly powertoolsRaw: Measured;
}

/** Server round trips per call of each library. */
export interface RoundTrips {
  readonly call: number;
  readonly replay: number;
}

/** The race rounds of one library. */
export interface RaceRun {
  readonly library: string;
  readonly tally: RaceTally;
}

/** Everything one run produced. */
export interface PowertoolsReport {
  readonly command: string;
  readonly mode: 'full' | 'quick';
  readonly plan: Plan;
  readonly loadAtStart: number;
  readonly latency: {
    readonly call: LatencyPair;
    readonly replay: LatencyPair;
    readonly roundTrips: { readonly hyphae: RoundTrips; readonly powertools: RoundTrips };
  };
  /** Both libraries with calls kept in flight on one client: calls per second, when the server is kept busy. */
  readonly inFlight: {
    readonly plan: FlightPlan;
    readonly call: { readonly hyphae: FlightStats; readonly powertools: FlightStats };
    readonly replay: { readonly hyphae: FlightStats; readonly powertools: FlightStats };
  };
  readonly races: readonly RaceRun[];
}

const KINDS = [
  ['call', 'first call (a new key each time)'],
  ['replay', 'replay (the same key again)'],
] as const;

const raceLabel = (run: RaceRun): string =>
  `${run.library} ${run.tally.callers}-way race, ${run.tally.jitterMs === 0 ? 'all start in one tick' : `start jitter 0–${run.tally.jitterMs} ms`}`;

const errorCount = (tally: RaceTally): number => Object.values(tally.errors).reduce((sum, n) => sum + n, 0);

/** The figures: each library's latency with powertools as hyphae's baseline, each against its raw round trips, the races. */
export function powertoolsFigures(report: PowertoolsReport): Figure[] {
  const figures: Figure[] = [];
  for (const [kind, title] of KINDS) {
    const { hyphae, powertools, hyphaeRaw, powertoolsRaw } = report.latency[kind];
    const name = `hyphae redis ledger vs powertools idempotency (redis): ${title}`;
    figures.push(figure(`${name}, mean`, 'µs/op (mean)', hyphae.stats.meanUs, powertools.stats.meanUs));
    figures.push(figure(`${name}, p50`, 'µs/op (p50)', hyphae.stats.p50Us, powertools.stats.p50Us));
    figures.push(figure(`${name}, p99`, 'µs/op (p99)', hyphae.stats.p99Us, powertools.stats.p99Us));
    figures.push(figure(`${name} — CPU time`, 'CPU µs/op', hyphae.stats.cpuUs, powertools.stats.cpuUs));
    figures.push(
      figure(`${hyphae.name} vs its raw round trips`, 'µs/op (mean)', hyphae.stats.meanUs, hyphaeRaw.stats.meanUs),
    );
    figures.push(
      figure(
        `${powertools.name} vs its raw round trips`,
        'µs/op (mean)',
        powertools.stats.meanUs,
        powertoolsRaw.stats.meanUs,
      ),
    );
  }
  for (const [kind, title] of KINDS) {
    const { hyphae, powertools } = report.inFlight[kind];
    const name = `hyphae redis ledger vs powertools idempotency (redis), ${report.inFlight.plan.inFlight} in flight: ${title}`;
    // Calls per second: the baseline is powertools, and a ratio above 1 means hyphae carried more.
    figures.push(figure(`${name}, calls/s`, 'calls/s', hyphae.callsPerSecond, powertools.callsPerSecond));
    figures.push(figure(`${name}, CPU per call`, 'CPU µs/call', hyphae.cpuUsPerCall, powertools.cpuUsPerCall));
  }
  for (const run of report.races) {
    const { tally } = run;
    const label = raceLabel(run);
    figures.push(figure(`${label}: executions per round`, 'executions/round', tally.executions / tally.rounds, 1));
    figures.push(figure(`${label}: duplicate executions`, 'executions', tally.duplicates, null, 0));
    figures.push(
      figure(`${label}: callers with a result per round`, 'callers/round', tally.results / tally.rounds, tally.callers),
    );
    figures.push(
      figure(`${label}: callers with an error per round`, 'callers/round', errorCount(tally) / tally.rounds, null),
    );
    figures.push(figure(`${label}: round settle time, p50`, 'ms', tally.settleMsP50, null));
  }
  return figures;
}

const right = (title: string): Column => ({ title, align: 'right' });
const times = (value: number): string => `${value.toFixed(2)}×`;

function latencyTable(report: PowertoolsReport): string[] {
  const columns = [
    { title: 'case' },
    ...['hyphae p50 µs', 'hyphae p99 µs', 'hyphae mean µs', 'hyphae CPU µs'].map(right),
    ...['powertools p50 µs', 'powertools p99 µs', 'powertools mean µs', 'powertools CPU µs'].map(right),
    ...['speed-up (p50)', 'speed-up (mean)', 'speed-up (CPU)'].map(right),
  ];
  return markdownTable(
    columns,
    KINDS.map(([kind, title]) => {
      const h = report.latency[kind].hyphae.stats;
      const p = report.latency[kind].powertools.stats;
      return [
        title,
        us(h.p50Us),
        us(h.p99Us),
        us(h.meanUs),
        us(h.cpuUs),
        us(p.p50Us),
        us(p.p99Us),
        us(p.meanUs),
        us(p.cpuUs),
        times(p.p50Us / h.p50Us),
        times(p.meanUs / h.meanUs),
        times(p.cpuUs / h.cpuUs),
      ];
    }),
  );
}

function rawTable(report: PowertoolsReport): string[] {
  const trips = report.latency.roundTrips;
  const rows: string[][] = [];
  for (const [kind] of KINDS) {
    const pair = report.latency[kind];
    for (const [library, measured, raw] of [
      ['hyphae', pair.hyphae, pair.hyphaeRaw],
      ['powertools', pair.powertools, pair.powertoolsRaw],
    ] as const) {
      rows.push([
        measured.name,
        String(trips[library][kind]),
        raw.name,
        us(raw.stats.p50Us),
        us(raw.stats.meanUs),
        us(raw.stats.cpuUs),
        times(measured.stats.meanUs / raw.stats.meanUs),
        us(measured.stats.meanUs - raw.stats.meanUs),
        us(measured.stats.cpuUs - raw.stats.cpuUs),
      ]);
    }
  }
  return markdownTable(
    [
      { title: 'case' },
      right('round trips'),
      { title: 'its raw round trips' },
      ...['raw p50 µs', 'raw mean µs', 'raw CPU µs', 'ratio (mean)', 'overhead µs (mean)', 'overhead µs (CPU)'].map(
        right,
      ),
    ],
    rows,
  );
}

function inFlightTable(report: PowertoolsReport): string[] {
  const columns = [
    { title: 'case' },
    ...['hyphae calls/s', 'hyphae p50 µs', 'hyphae CPU µs/call'].map(right),
    ...['powertools calls/s', 'powertools p50 µs', 'powertools CPU µs/call'].map(right),
    right('hyphae ÷ powertools (calls/s)'),
  ];
  return markdownTable(
    columns,
    KINDS.map(([kind, title]) => {
      const h = report.inFlight[kind].hyphae;
      const p = report.inFlight[kind].powertools;
      return [
        title,
        h.callsPerSecond.toFixed(0),
        us(h.p50Us),
        us(h.cpuUsPerCall),
        p.callsPerSecond.toFixed(0),
        us(p.p50Us),
        us(p.cpuUsPerCall),
        times(h.callsPerSecond / p.callsPerSecond),
      ];
    }),
  );
}

function raceTable(report: PowertoolsReport): string[] {
  return markdownTable(
    [
      { title: 'race' },
      ...[
        'rounds',
        'executions',
        'duplicates',
        'rounds with >1',
        'callers with a result',
        'not the winner’s result',
      ].map(right),
      { title: 'callers with an error' },
      ...['settle p50 ms', 'settle max ms'].map(right),
    ],
    report.races.map((run) => {
      const { tally } = run;
      const errors = Object.entries(tally.errors)
        .map(([name, count]) => `${count} ${name}`)
        .join(', ');
      return [
        raceLabel(run),
        String(tally.rounds),
        String(tally.executions),
        String(tally.duplicates),
        String(tally.roundsWithDuplicates),
        `${tally.results} of ${tally.rounds * tally.callers}`,
        String(tally.resultsNotTheWinners),
        errors === '' ? '0' : errors,
        tally.settleMsP50.toFixed(1),
        tally.settleMsMax.toFixed(1),
      ];
    }),
  );
}

/** The Markdown page. */
export function powertoolsMarkdown(report: PowertoolsReport, date: Date): string {
  const { plan } = report;
  const trips = report.latency.roundTrips;
  return [
    '# Against @aws-lambda-powertools/idempotency (Redis)',
    '',
    ...headerLines(report.command, report.loadAtStart, date),
    `- Plan: ${report.mode} mode, ${plan.warmupMs} ms warm-up, then ${roundsText(plan)}`,
    '',
    'Both libraries guard the same no-op on the same Redis server (127.0.0.1:6379) through a node-redis v5',
    'client. hyphae: `createLedger` over `createRedisStorage({ client })`, `ledger.tool` with an',
    '`idempotent_mutate` spec, a fresh tool call id per first call. powertools 2.35.0: `makeIdempotent` over',
    '`CachePersistenceLayer({ client })`, default config (no local cache, whole payload hashed),',
    '`config.registerLambdaContext` with a fake context whose `getRemainingTimeInMillis` returns 15 minutes; the',
    'payload is the same arguments plus the call id. Speed-up = powertools ÷ hyphae (above 1: hyphae is faster).',
    `Round trips per call: hyphae ${trips.hyphae.call} (first call) and ${trips.hyphae.replay} (replay), each an EVALSHA of a Lua`,
    `script; powertools ${trips.powertools.call} and ${trips.powertools.replay}, plain SET / GET commands.`,
    '',
    '## Latency per call',
    '',
    ...latencyTable(report),
    '',
    '## Each library against its own round trips',
    '',
    'The raw rows send the same commands the library sent (captured for one call), back to back through the',
    'same client, with values of the same size; what is left is the library’s own work in the process.',
    '',
    ...rawTable(report),
    '',
    `## ${report.inFlight.plan.inFlight} calls in flight`,
    '',
    `The same cases with ${report.inFlight.plan.inFlight} calls kept in flight through the one client (node-redis pipelines them`,
    'on its connection), so the server is never idle between requests: calls per second, the latency of one',
    'call while the others are in flight, and the process CPU per call. Nothing else differs from the',
    `single-call rows (same client, server, defaults). Plan: ${report.inFlight.plan.warmupMs} ms warm-up, then`,
    `${roundsText(report.inFlight.plan)}.`,
    '',
    ...inFlightTable(report),
    '',
    `## ${report.races[0]?.tally.callers ?? 32}-way race on one key`,
    '',
    'Every caller has its own client (and its own ledger or persistence layer); all callers of a round use the',
    'same key, and the body records which caller ran it. A duplicate is a second execution of the body in a',
    'round. A caller that is refused with an error did not execute the body, but got no result either.',
    '',
    ...raceTable(report),
    '',
  ].join('\n');
}

/** Write `bench/results/powertools.{json,md}`. */
export async function writePowertoolsReport(report: PowertoolsReport, date = new Date()): Promise<void> {
  await writeArea('powertools', powertoolsFigures(report), powertoolsMarkdown(report, date));
}
