/**
 * A/B: the ledger of an earlier revision against this checkout's, in one process on one Redis
 * server, cases interleaved round by round, so a regression shows as a ratio measured in one run.
 * Powertools' first call and replay run in the same rounds, as the yardstick of issue targets.
 *
 *   node bench/run-bundled.mjs bench/ledger/ab.ts [--base <revision>] [--quick]
 *
 * The base defaults to e7cb84c (the last revision before the decision protocol). Writes
 * bench/results/ab.{json,md}; bench/aggregate.ts gathers them into bench/RESULTS.md.
 */
import { commandLine, type Figure, figure, headerLines, load, us, writeArea } from '../lib/area-report.js';
import type { Stats } from '../lib/histogram.js';
import { type FlightStats, measureInFlight } from '../lib/in-flight.js';
import { type Column, markdownTable } from '../lib/markdown-table.js';
import { measureCases, roundsText, type TimedCase } from '../lib/measure.js';
import { type BenchRedisClient, onBenchRedis } from '../lib/redis-bench-client.js';
import { type LedgerBuild, revisionBuild, workingTreeBuild } from './ab-builds.js';
import { ledgerCases } from './cases.js';
import { comparisonPlan, powertoolsCases } from './powertools-cases.js';

const quick = process.argv.includes('--quick');
const baseAt = process.argv.indexOf('--base');
const BASE = baseAt === -1 ? 'e7cb84c' : (process.argv[baseAt + 1] ?? 'e7cb84c');
const plan = comparisonPlan(quick);
const IN_FLIGHT = 32;

/** The cases of one side: a fresh call and a replay, on memory and on Redis. */
type CaseName = 'memory call' | 'memory replay' | 'redis call' | 'redis replay';
const CASES: readonly CaseName[] = ['memory call', 'memory replay', 'redis call', 'redis replay'];

function sideCases(built: LedgerBuild, client: BenchRedisClient, prefix: string): Record<CaseName, TimedCase> {
  const redis = built.createRedisStorage({ client }, { prefix });
  const memory = ledgerCases(`${built.label}: memory`, () => built.createMemoryStorage(), built.createLedger);
  const onRedis = ledgerCases(`${built.label}: redis`, () => redis, built.createLedger);
  return {
    'memory call': memory.call,
    'memory replay': memory.replay,
    'redis call': onRedis.call,
    'redis replay': onRedis.replay,
  };
}

interface Measured {
  readonly base: Record<CaseName, Stats>;
  readonly head: Record<CaseName, Stats>;
  readonly powertools: { readonly call: Stats; readonly replay: Stats };
  readonly flight: { readonly base: FlightStats; readonly head: FlightStats };
}

const right = (title: string): Column => ({ title, align: 'right' });

function markdownOf(command: string, loadAtStart: number, base: LedgerBuild, head: LedgerBuild, m: Measured): string {
  const rows = CASES.map((name) => {
    const a = m.base[name];
    const b = m.head[name];
    return [name, us(a.p50Us), us(b.p50Us), us(a.cpuUs), us(b.cpuUs), ratio(b.p50Us, a.p50Us), ratio(b.cpuUs, a.cpuUs)];
  });
  const versus = (['call', 'replay'] as const).map((kind) => {
    const pt = m.powertools[kind];
    const a = m.base[`redis ${kind}`];
    const b = m.head[`redis ${kind}`];
    return [`redis ${kind}`, us(pt.p50Us), us(pt.cpuUs), ratio(pt.p50Us, a.p50Us), ratio(pt.p50Us, b.p50Us)];
  });
  const f = m.flight;
  return [
    '# A/B: an earlier build of the ledger against this one',
    '',
    ...headerLines(command, loadAtStart, new Date()),
    `- Plan: ${quick ? 'quick' : 'full'} mode, ${plan.warmupMs} ms warm-up, then ${roundsText(plan)}`,
    `- base: \`${base.source}\``,
    `- head: \`${head.source}\``,
    '',
    'Both builds are bundled from their sources the same way (esbuild, packages external) and loaded into',
    'one process; every case of both runs in the same rounds, one call at a time, on one node-redis client',
    'to the shared server (127.0.0.1:6379). Each case is `ledger.tool` with an `idempotent_mutate` spec and a',
    'no-op body at default ledger options: a fresh tool call id per call, or one completed call replayed.',
    'Each build keeps one ledger per store for the whole run (a fresh memory store, and so a fresh ledger,',
    'each round).',
    'Powertools (`makeIdempotent` over its cache persistence layer, defaults) runs in the same rounds.',
    'Ratio = head ÷ base: below 1 the head is faster.',
    '',
    markdownTable(
      [
        { title: 'case' },
        ...['base p50 µs', 'head p50 µs', 'base CPU µs', 'head CPU µs', 'head ÷ base (p50)', 'head ÷ base (CPU)'].map(
          right,
        ),
      ],
      rows,
    ).join('\n'),
    '',
    'Against Powertools in the same rounds: speed-up = Powertools p50 ÷ hyphae p50 (above 1: hyphae is faster).',
    '',
    markdownTable(
      [{ title: 'case' }, ...['powertools p50 µs', 'powertools CPU µs', 'base speed-up', 'head speed-up'].map(right)],
      versus,
    ).join('\n'),
    '',
    `${IN_FLIGHT} first calls in flight on the one client (Redis), both builds in the same rounds:`,
    '',
    markdownTable(
      [{ title: 'build' }, ...['calls/s', 'p50 µs', 'CPU µs/call'].map(right)],
      [
        ['base', f.base.callsPerSecond.toFixed(0), us(f.base.p50Us), us(f.base.cpuUsPerCall)],
        ['head', f.head.callsPerSecond.toFixed(0), us(f.head.p50Us), us(f.head.cpuUsPerCall)],
      ],
    ).join('\n'),
    '',
  ].join('\n');
}

function ratio(value: number, baseline: number): string {
  return `${(value / baseline).toFixed(2)}×`;
}

function figuresOf(m: Measured): Figure[] {
  return [
    ...CASES.flatMap((name) => [
      figure(`A/B head ÷ base: ${name}`, 'µs p50', m.head[name].p50Us, m.base[name].p50Us),
      figure(`A/B head ÷ base: ${name} — CPU time`, 'CPU µs/call', m.head[name].cpuUs, m.base[name].cpuUs),
    ]),
    ...(['call', 'replay'] as const).map((kind) =>
      figure(
        `A/B Powertools ÷ head: redis ${kind} (speed-up at p50)`,
        'µs p50',
        m.powertools[kind].p50Us,
        m.head[`redis ${kind}`].p50Us,
      ),
    ),
    figure(
      `A/B head ÷ base: redis, ${IN_FLIGHT} first calls in flight`,
      'calls/s',
      m.flight.head.callsPerSecond,
      m.flight.base.callsPerSecond,
      0,
    ),
  ];
}

async function main(): Promise<void> {
  const loadAtStart = load();
  const command = commandLine();
  const base = await revisionBuild('base', BASE);
  const head = await workingTreeBuild('head');
  console.log(`base: ${base.source}\nhead: ${head.source}`);
  await onBenchRedis('A/B bench', async (client, run) => {
    const a = sideCases(base, client, `${run}base:`);
    const b = sideCases(head, client, `${run}head:`);
    const pt = powertoolsCases(client, `${run}powertools`);
    const cases = [...CASES.flatMap((name) => [a[name], b[name]]), pt.call, pt.replay];
    const stats = await measureCases(cases, plan);
    for (const [i, timed] of cases.entries()) {
      const s = stats[i] as Stats;
      console.log(`  ${timed.name.padEnd(64)} p50 ${us(s.p50Us).padStart(7)} µs  cpu ${us(s.cpuUs).padStart(7)} µs`);
    }
    const pick = (side: Record<CaseName, TimedCase>) =>
      Object.fromEntries(CASES.map((name) => [name, stats[cases.indexOf(side[name])] as Stats])) as Record<
        CaseName,
        Stats
      >;
    const [flightBase, flightHead] = (await measureInFlight([a['redis call'], b['redis call']], {
      ...plan,
      inFlight: IN_FLIGHT,
    })) as [FlightStats, FlightStats];
    const measured: Measured = {
      base: pick(a),
      head: pick(b),
      powertools: { call: stats[cases.indexOf(pt.call)] as Stats, replay: stats[cases.indexOf(pt.replay)] as Stats },
      flight: { base: flightBase, head: flightHead },
    };
    await writeArea('ab', figuresOf(measured), markdownOf(command, loadAtStart, base, head, measured));
    console.log('wrote bench/results/ab.json and bench/results/ab.md');
  });
}

await main();
