/**
 * The cost of `hyphae/workflow`: a Workflow DevKit workflow of one step whose body is one INSERT
 * into SQLite, stock and through `ledgeredStep` with the ledger on SQLite, on the local world, in one
 * run. The app is built by the `workflow` CLI and served in this process (bench/durable/workflow-app.ts).
 *
 *   node bench/run-bundled.mjs bench/durable/workflow.ts            # full run (~3 min)
 *   node bench/run-bundled.mjs bench/durable/workflow.ts --quick    # short run (~40 s)
 *
 * Writes bench/results/durable-workflow.{json,md}; bench/aggregate.ts gathers them into bench/RESULTS.md.
 */
import { commandLine, figure, headerLines, load, us, writeArea } from '../lib/area-report.js';
import type { StorageCalls } from '../lib/counting-storage.js';
import { Histogram, type Stats } from '../lib/histogram.js';
import { type Column, markdownTable } from '../lib/markdown-table.js';
import { measureCases, type Plan, roundsText } from '../lib/measure.js';
import { type BuiltApp, buildApp, type HostedApp, hostApp, type WorkflowName } from './workflow-app.js';

const quick = process.argv.includes('--quick');
const plan: Plan = quick
  ? { warmupMs: 500, durationMs: 4000, rounds: 2 }
  : { warmupMs: 2000, durationMs: 36_000, rounds: 12 };

const ORDER = ['ord_42', 100] as const;

/** One measured workflow: its step (as the app names it in its step times) and the ledger file it uses. */
interface BenchCase {
  readonly name: string;
  readonly workflow: WorkflowName;
  readonly step: string;
  readonly ledger: (app: BuiltApp) => string | null;
}

const CASES: readonly BenchCase[] = [
  { name: 'stock: a `"use step"` of one INSERT', workflow: 'stockCharge', step: 'stock', ledger: () => null },
  {
    name: '`ledgeredStep` defaults (the claim carries the boundary)',
    workflow: 'guardedCharge',
    step: 'guarded',
    ledger: (app) => app.ledgerDb,
  },
  {
    name: "`ledgeredStep` with `boundary: 'marked'`, the INSERT in `sideEffect()`",
    workflow: 'leanCharge',
    step: 'lean',
    ledger: (app) => app.ledgerDb,
  },
  {
    name: '`ledgeredStep` defaults, tuned: ledger file in WAL mode',
    workflow: 'walCharge',
    step: 'wal',
    ledger: (app) => app.ledgerWalDb,
  },
];

/** The ledger's store round trips for one run of a case, by storage method. */
interface RoundTrips {
  readonly create: number;
  readonly update: number;
  readonly get: number;
  readonly findByTicket: number;
  readonly total: number;
}

const NO_CALLS: StorageCalls = { create: 0, update: 0, get: 0, findByTicket: 0, docs: [] };

/** Run one workflow of `timed` and count the storage calls its ledger made. */
async function countRoundTrips(host: HostedApp, app: BuiltApp, timed: BenchCase): Promise<RoundTrips> {
  const path = timed.ledger(app);
  const before = { ...(path === null ? NO_CALLS : (host.storageCalls(path) ?? NO_CALLS)) };
  await host.run(timed.workflow, ORDER);
  const after = path === null ? NO_CALLS : (host.storageCalls(path) ?? NO_CALLS);
  const create = after.create - before.create;
  const update = after.update - before.update;
  const get = after.get - before.get;
  const findByTicket = after.findByTicket - before.findByTicket;
  return { create, update, get, findByTicket, total: create + update + get + findByTicket };
}

function at<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`missing case ${index}`);
  return item;
}

async function main(): Promise<void> {
  const command = commandLine();
  const loadAtStart = load();
  console.log(`${command}: ${quick ? 'quick' : 'full'} run, ${plan.durationMs} ms per case`);
  const app = buildApp();
  const host = await hostApp(app);
  try {
    // The first run of each warms the bundles, the world and the ledger's schema check.
    for (const timed of CASES) await host.run(timed.workflow, ORDER);
    const trips: RoundTrips[] = [];
    for (const timed of CASES) trips.push(await countRoundTrips(host, app, timed));
    // Step times of the measured rounds only: the first `start()` of a case is its warm-up.
    const starts = new Map<string, number>();
    const skip = new Map<string, number>();
    const stats = await measureCases(
      CASES.map((timed) => ({
        name: timed.name,
        start: () => {
          const count = (starts.get(timed.step) ?? 0) + 1;
          starts.set(timed.step, count);
          if (count === 2) skip.set(timed.step, host.stepTimes()[timed.step]?.length ?? 0);
          return () => host.run(timed.workflow, ORDER);
        },
      })),
      plan,
    );
    const steps = CASES.map((timed) => {
      const histogram = new Histogram();
      for (const value of (host.stepTimes()[timed.step] ?? []).slice(skip.get(timed.step) ?? 0))
        histogram.record(value);
      return histogram.stats();
    });
    for (const [i, timed] of CASES.entries()) {
      const s = at(stats, i);
      console.log(
        `  ${timed.name.padEnd(60)} run p50 ${us(s.p50Us).padStart(8)}  p99 ${us(s.p99Us).padStart(8)} µs; step p50 ${us(at(steps, i).p50Us).padStart(8)} µs; ${at(trips, i).total} round trips`,
      );
    }
    await writeReport(command, loadAtStart, stats, steps, trips);
  } finally {
    await host.close();
    app.remove();
  }
  console.log('wrote bench/results/durable-workflow.json and bench/results/durable-workflow.md');
}

async function writeReport(
  command: string,
  loadAtStart: number,
  stats: readonly Stats[],
  steps: readonly Stats[],
  trips: readonly RoundTrips[],
): Promise<void> {
  const base = at(stats, 0);
  const ratio = (s: Stats, of: 'p50Us' | 'p99Us'): number => s[of] / base[of];
  const times = (value: number): string => `${value.toFixed(2)}×`;
  const figures = [
    figure('durable workflow ledgeredStep p50 ratio (with ÷ without)', 'ratio', ratio(at(stats, 1), 'p50Us'), 1),
    figure('durable workflow ledgeredStep p99 ratio (with ÷ without)', 'ratio', ratio(at(stats, 1), 'p99Us'), 1),
    figure('durable workflow ledgeredStep marked p50 ratio (with ÷ without)', 'ratio', ratio(at(stats, 2), 'p50Us'), 1),
    figure('durable workflow ledgeredStep marked p99 ratio (with ÷ without)', 'ratio', ratio(at(stats, 2), 'p99Us'), 1),
    figure('durable workflow ledgeredStep WAL p50 ratio (with ÷ without)', 'ratio', ratio(at(stats, 3), 'p50Us'), 1),
    figure('durable workflow ledgeredStep store round trips per step', 'count', at(trips, 1).total, null, 0),
    figure('durable workflow ledgeredStep marked store round trips per step', 'count', at(trips, 2).total, null, 0),
  ];
  const columns: Column[] = [
    { title: 'case' },
    { title: 'ledger round trips', align: 'right' },
    { title: 'step p50 µs', align: 'right' },
    { title: 'run p50 µs', align: 'right' },
    { title: 'run p99 µs', align: 'right' },
    { title: 'with ÷ without (p50)', align: 'right' },
    { title: 'with ÷ without (p99)', align: 'right' },
  ];
  const rows = CASES.map((timed, i) => {
    const s = at(stats, i);
    const t = at(trips, i);
    const parts = [`${t.create} create`, `${t.update} update`, ...(t.get > 0 ? [`${t.get} get`] : [])];
    return [
      timed.name,
      t.total === 0 ? '0' : `${t.total} (${parts.join(', ')})`,
      us(at(steps, i).p50Us),
      us(s.p50Us),
      us(s.p99Us),
      times(ratio(s, 'p50Us')),
      times(ratio(s, 'p99Us')),
    ];
  });
  const markdown = [
    '# Workflow DevKit step with and without the ledger (SQLite)',
    '',
    ...headerLines(command, loadAtStart, new Date()),
    `- Plan: ${quick ? 'quick' : 'full'} mode; ${plan.warmupMs} ms warm-up, then ${roundsText(plan)}; ${base.ops} stock runs`,
    '',
    `One process: \`workflow\` 4.8.9's app, built by \`workflow build\` (standalone target), served by a plain
\`node:http\` server on the local world (its defaults: runs, steps and events as JSON files, a queue that
calls the server over HTTP). Each call starts a fresh run of a workflow of one \`"use step"\` whose body is
one INSERT into a SQLite table (better-sqlite3, its defaults); a run is timed from \`start()\` to its result,
read once the flow invocation that ended it returns (\`returnValue\` itself polls once a second). The
guarded cases run the body through \`ledgeredStep\` (class \`payment\`, the step id passed to the INSERT as
its idempotency key) with the ledger on SQLite in a file of its own, opened as
docs/adapters/workflow.md does (\`createSqliteStorage({ database })\`: the connection's journal mode left
as it is, \`synchronous = FULL\`). Ledger round trips are the storage calls per step, counted by a proxy
around the store (one SQLite transaction each); "step" is the \`"use step"\` function's own time, so run
minus step is the engine's. The last row is tuned and says so: the ledger's file switched to WAL.`,
    '',
    ...markdownTable(columns, rows),
    '',
  ].join('\n');
  await writeArea('durable-workflow', figures, markdown);
}

await main();
