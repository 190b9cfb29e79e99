/**
 * Ledger benchmark: what a ledgered call costs over its raw storage operations, per backend.
 *
 *   node bench/run-bundled.mjs bench/ledger/run.ts           # full run (~2 min with every backend)
 *   node bench/run-bundled.mjs bench/ledger/run.ts --quick   # short run (<15 s)
 *
 * Writes bench/results/ledger.{json,md}; `npm run bench` then runs bench/aggregate.ts, which joins every
 * area's results into bench/results.json and bench/RESULTS.md.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { commandLine, load } from '../lib/area-report.js';
import type { Stats } from '../lib/histogram.js';
import { measureCases, type Plan, type TimedCase } from '../lib/measure.js';
import { overheadOf, type Report, type Row, ratioOf, type TargetCheck, writeReport } from '../lib/report.js';
import type { Backend } from './backend.js';
import { BACKENDS } from './backends/index.js';
import { CASE_KINDS, ledgerCases } from './cases.js';
import { countWrites, type WriteCount } from './write-counts.js';

const quick = process.argv.includes('--quick');

/** The value after `flag` on the command line, if any. */
function argValue(flag: string): string | undefined {
  const at = process.argv.indexOf(flag);
  return at === -1 ? undefined : process.argv[at + 1];
}

/** What one backend's process hands back to the parent. */
interface BackendResult {
  readonly rows: Row[];
  readonly writes: WriteCount[];
  readonly target: TargetCheck | null;
}
const plan: Plan = quick
  ? { warmupMs: 50, durationMs: 250, rounds: 2 }
  : // Short slices: fsync latency drifts with the machine's other disk traffic, and every case should see the same drift.
    { warmupMs: 500, durationMs: 3000, rounds: 15 };

function checkTarget(backend: Backend, call: Row | undefined): TargetCheck | null {
  const target = backend.target;
  if (target === undefined || call === undefined) return null;
  if (target.kind === 'ratio') {
    const ratio = ratioOf(call);
    const cpu = call.stats.cpuUs / call.baseline.stats.cpuUs;
    return {
      text: target.text,
      measured: `${ratio.toFixed(2)}× (CPU time ${cpu.toFixed(2)}×)`,
      met: ratio <= target.max,
    };
  }
  const overhead = overheadOf(call);
  const cpu = call.stats.cpuUs - call.baseline.stats.cpuUs;
  return {
    text: target.text,
    measured: `${overhead.toFixed(2)} µs (CPU time ${cpu.toFixed(2)} µs)`,
    met: overhead <= target.max,
  };
}

function printRow(row: Row): void {
  const { stats, baseline } = row;
  const f = (value: number): string => value.toFixed(2).padStart(9);
  console.log(
    `  ${row.name.padEnd(72)} ops ${String(stats.ops).padStart(8)}  mean ${f(stats.meanUs)} µs  p50 ${f(stats.p50Us)}  p99 ${f(stats.p99Us)}  ` +
      `cpu ${f(stats.cpuUs)}  baseline ${f(baseline.stats.meanUs)} (cpu ${f(baseline.stats.cpuUs)})  ×${ratioOf(row).toFixed(2)}  +${overheadOf(row).toFixed(2)} µs`,
  );
}

async function runBackend(backend: Backend, dir: string): Promise<{ rows: Row[]; writes: WriteCount[] }> {
  const session = await backend.open(dir);
  try {
    const writes = await countWrites(backend.name, session.storage());
    for (const count of Object.values(writes)) {
      console.log(
        `  writes ${count.kind.padEnd(10)} create ${count.create}  update ${count.update}  reads ${count.reads}  → ${count.writes} (expected ${count.expectedWrites}) ${count.ok ? 'ok' : 'MISMATCH'}`,
      );
    }
    const ledgered = ledgerCases(backend.name, () => session.storage());
    const baselines = session.baselines(writes);
    // A baseline shared by several cases (the bare call on memory) is measured once.
    const baselineCases = [...new Set(CASE_KINDS.map((kind) => baselines[kind]))];
    const cases: TimedCase[] = [...CASE_KINDS.map((kind) => ledgered[kind]), ...baselineCases];
    const measured = await measureCases(cases, plan);
    const statsOf = new Map<TimedCase, Stats>(cases.map((timed, i) => [timed, measured[i] as Stats]));
    const rows = CASE_KINDS.map((kind): Row => {
      const baseline = baselines[kind];
      return {
        backend: backend.name,
        kind,
        name: ledgered[kind].name,
        stats: statsOf.get(ledgered[kind]) as Stats,
        baseline: { name: baseline.name, stats: statsOf.get(baseline) as Stats },
      };
    });
    rows.forEach(printRow);
    return { rows, writes: Object.values(writes) };
  } finally {
    await session.close();
  }
}

/**
 * Measure one backend in a child process of its own, as an application uses one backend: a process
 * that measured others first would carry their heap and their compiled code into these figures.
 */
async function inOwnProcess(backend: Backend, dir: string): Promise<BackendResult> {
  const out = join(dir, `${backend.name}.json`);
  const args = [...process.execArgv, process.argv[1] ?? '', '--backend', backend.name, '--out', out];
  if (quick) args.push('--quick');
  const child = spawn(process.execPath, args, { stdio: 'inherit' });
  const [code] = (await once(child, 'exit')) as [number | null];
  if (code !== 0) throw new Error(`The ${backend.name} measurement exited with code ${String(code)}`);
  return JSON.parse(await readFile(out, 'utf8')) as BackendResult;
}

/** The child's side of {@link inOwnProcess}: measure `name` and write its result to `out`. */
async function measureOne(name: string, out: string): Promise<void> {
  const backend = BACKENDS.find((candidate) => candidate.name === name);
  if (backend === undefined) throw new Error(`Unknown backend \`${name}\``);
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-bench-'));
  try {
    const result = await runBackend(backend, dir);
    const target = checkTarget(
      backend,
      result.rows.find((row) => row.kind === 'call'),
    );
    const handed: BackendResult = { rows: result.rows, writes: result.writes, target };
    await writeFile(out, JSON.stringify(handed));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  // `--quick` is the only argument that changes the run, so it is the only one shown.
  const command = commandLine(process.argv.slice(2).filter((arg) => arg === '--quick'));
  const loadAtStart = load();
  console.log(`${command}: ${quick ? 'quick' : 'full'} run, ${plan.durationMs} ms per case`);
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-bench-'));
  const rows: Row[] = [];
  const writes: WriteCount[] = [];
  const targets: TargetCheck[] = [];
  const baselines: { backend: string; text: string }[] = [];
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
      const result = await inOwnProcess(backend, dir);
      rows.push(...result.rows);
      writes.push(...result.writes);
      baselines.push({ backend: backend.name, text: backend.baseline });
      if (result.target !== null) targets.push(result.target);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
  const report: Report = {
    command,
    mode: quick ? 'quick' : 'full',
    plan,
    rows,
    baselines,
    writes,
    targets,
    skipped,
    loadAtStart,
  };
  await writeReport(report);
  for (const target of targets)
    console.log(`target: ${target.text}: ${target.measured} → ${target.met ? 'met' : 'MISSED'}`);
  const wrong = writes.filter((count) => !count.ok);
  if (wrong.length > 0) {
    console.error(
      `Storage write counts differ from the design: ${wrong.map((c) => `${c.backend} ${c.kind} = ${c.writes}`).join(', ')}`,
    );
    process.exitCode = 1;
  }
  console.log(
    'wrote bench/results/ledger.json and bench/results/ledger.md (run bench/aggregate.ts to rebuild bench/RESULTS.md)',
  );
}

const only = argValue('--backend');
const out = argValue('--out');
if (only !== undefined && out !== undefined) await measureOne(only, out);
else await main();
