/**
 * Ledger throughput: ledgered no-op calls with 32 in flight over distinct keys, per backend, against
 * the backend's raw round trips (the same ones the ledger bench compares with) kept 32 in flight.
 *
 *   node --import tsx bench/ledger/throughput.ts            # full run (~1.5 min with every backend)
 *   node --import tsx bench/ledger/throughput.ts --quick    # short run (<15 s)
 *
 * Writes bench/results/throughput.{json,md}; bench/aggregate.ts gathers them into bench/RESULTS.md.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandLine, type Figure, figure, headerLines, load, us, writeArea } from '../lib/area-report.js';
import { type FlightPlan, type FlightStats, measureInFlight } from '../lib/in-flight.js';
import { type Column, markdownTable } from '../lib/markdown-table.js';
import { roundsText } from '../lib/measure.js';
import type { Backend } from './backend.js';
import { BACKENDS } from './backends/index.js';
import { ledgerCases } from './cases.js';
import { countWrites } from './write-counts.js';

const quick = process.argv.includes('--quick');
const IN_FLIGHT = 32;
const plan: FlightPlan = quick
  ? { warmupMs: 100, durationMs: 500, rounds: 2, inFlight: IN_FLIGHT }
  : { warmupMs: 1000, durationMs: 6000, rounds: 12, inFlight: IN_FLIGHT };

/** One backend's ledgered calls and raw round trips, both with `IN_FLIGHT` in flight. */
interface Row {
  readonly backend: string;
  readonly baselineName: string;
  readonly ledgered: FlightStats;
  readonly raw: FlightStats;
}

async function runBackend(backend: Backend, dir: string): Promise<Row> {
  const session = await backend.open(dir);
  try {
    const writes = await countWrites(backend.name, session.storage());
    const ledgered = ledgerCases(backend.name, () => session.storage()).call;
    const baseline = session.baselines(writes).call;
    const [ledgeredStats, rawStats] = (await measureInFlight([ledgered, baseline], plan)) as [FlightStats, FlightStats];
    const row = { backend: backend.name, baselineName: baseline.name, ledgered: ledgeredStats, raw: rawStats };
    console.log(
      `  ledgered ${ledgeredStats.callsPerSecond.toFixed(0).padStart(8)} calls/s (p50 ${us(ledgeredStats.p50Us)} µs, cpu ${us(ledgeredStats.cpuUsPerCall)} µs)  ` +
        `raw ${rawStats.callsPerSecond.toFixed(0).padStart(8)} calls/s (p50 ${us(rawStats.p50Us)} µs, cpu ${us(rawStats.cpuUsPerCall)} µs)  ` +
        `ratio ${(ledgeredStats.callsPerSecond / rawStats.callsPerSecond).toFixed(2)}`,
    );
    return row;
  } finally {
    await session.close();
  }
}

function figuresOf(rows: readonly Row[]): Figure[] {
  return rows.flatMap((row) => [
    figure(
      `${row.backend}: ledgered no-op calls, ${IN_FLIGHT} in flight over distinct keys`,
      'calls/s',
      row.ledgered.callsPerSecond,
      row.raw.callsPerSecond,
      0,
    ),
    figure(
      `${row.backend}: ledgered no-op calls, ${IN_FLIGHT} in flight — CPU time`,
      'CPU µs/call',
      row.ledgered.cpuUsPerCall,
      row.raw.cpuUsPerCall,
    ),
  ]);
}

const right = (title: string): Column => ({ title, align: 'right' });

function markdownOf(command: string, loadAtStart: number, rows: readonly Row[], skipped: readonly string[]): string {
  const table = markdownTable(
    [
      { title: 'backend' },
      ...['ledgered calls/s', 'raw calls/s', 'ratio', 'ledgered p50 µs', 'ledgered p99 µs'].map(right),
      ...['raw p50 µs', 'raw p99 µs', 'ledgered CPU µs/call', 'raw CPU µs/call'].map(right),
    ],
    rows.map((row) => [
      row.backend,
      row.ledgered.callsPerSecond.toFixed(0),
      row.raw.callsPerSecond.toFixed(0),
      `${(row.ledgered.callsPerSecond / row.raw.callsPerSecond).toFixed(2)}×`,
      us(row.ledgered.p50Us),
      us(row.ledgered.p99Us),
      us(row.raw.p50Us),
      us(row.raw.p99Us),
      us(row.ledgered.cpuUsPerCall),
      us(row.raw.cpuUsPerCall),
    ]),
  );
  return [
    `# Ledger throughput, ${IN_FLIGHT} calls in flight`,
    '',
    ...headerLines(command, loadAtStart, new Date()),
    `- Plan: ${quick ? 'quick' : 'full'} mode, ${plan.warmupMs} ms warm-up, then ${roundsText(plan)}`,
    ...(skipped.length === 0 ? [] : [`- Not run: ${skipped.join('; ')}`]),
    '',
    `${IN_FLIGHT} workers in one process each await a call and start the next, so ${IN_FLIGHT} calls are always in`,
    'flight, every one on a fresh transition (`ledger.tool`, `idempotent_mutate`, no-op body, a new tool call id).',
    'The baseline keeps the same number of the backend’s raw round trips in flight (the ledger bench’s baselines:',
    'the driver’s create then CAS update, with documents of the same size; the bare body for memory). Ratio =',
    'ledgered calls/s ÷ raw calls/s. Latency is that of one call while the others are in flight. Redis runs',
    'every call over one client connection (node-redis, or ioredis through `fromIoredis`; both pipeline);',
    'PostgreSQL over a `pg` pool of 10 connections;',
    'better-sqlite3 is synchronous, so SQLite calls run one at a time whatever the number in flight.',
    'One ledger serves every round of a store, as a server keeps one. Each round starts with a full',
    'collection, then keeps the calls in flight for half a round unmeasured before it measures: a forced',
    'collection throws away the optimised code whose objects died, and the first few hundred milliseconds',
    'after one cost about 1.5× the CPU per call on Redis (before 2026-12-07 the bench made a fresh ledger',
    'each round and measured from the collection on).',
    '',
    ...table,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const command = commandLine();
  const loadAtStart = load();
  console.log(`${command}: ${quick ? 'quick' : 'full'} run, ${IN_FLIGHT} in flight, ${plan.durationMs} ms per case`);
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-throughput-'));
  const rows: Row[] = [];
  const skipped: string[] = [];
  try {
    for (const backend of BACKENDS) {
      const unavailable = await backend.available();
      if (unavailable !== null) {
        skipped.push(`${backend.name} (${unavailable})`);
        console.log(`${backend.name}: skipped, ${unavailable}`);
        continue;
      }
      console.log(`${backend.name} (baseline: ${backend.baseline})`);
      rows.push(await runBackend(backend, dir));
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  await writeArea('throughput', figuresOf(rows), markdownOf(command, loadAtStart, rows, skipped));
  console.log('wrote bench/results/throughput.json and bench/results/throughput.md');
}

await main();
