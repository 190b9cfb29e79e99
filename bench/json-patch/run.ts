/**
 * JSON Patch benchmark: `applyJsonPatch` with every limit on, against fast-json-patch's
 * `applyPatch(doc, patch, validate = true, mutate = false)` and rfc6902's `applyPatch` (which
 * mutates, so it runs on a deep clone: timed with the clone, and without it for fairness).
 *
 *   node --import tsx bench/json-patch/run.ts            # full run (~3 min idle, ~6 min on a loaded machine)
 *   node --import tsx bench/json-patch/run.ts --quick    # short run (~1 min)
 *   node --import tsx bench/json-patch/run.ts --only=conformance   # one workload (partial result files)
 *
 * Writes bench/results/json-patch.json and bench/results/json-patch.md.
 */
import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { arch, cpus, loadavg, platform, release } from 'node:os';
import { relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import jsonPatch from 'fast-json-patch';
import { applyPatch as rfc6902ApplyPatch } from 'rfc6902';
import { applyJsonPatch, DEFAULT_JSON_PATCH_LIMITS, type JsonPatchLimits } from '../../src/harness/json-patch/index.js';
import { canonicalJson } from '../../src/index.js';
import { markdownTable } from '../lib/markdown-table.js';
import { conformanceWorkloads, designDocument, designPatch, type Workload } from './workload.js';

const quick = process.argv.includes('--quick');
/** `--only=conformance` runs the workloads whose name contains the text (the result files are then partial). */
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const plan = quick ? { warmupMs: 300, roundMs: 400, rounds: 5 } : { warmupMs: 1_000, roundMs: 1_500, rounds: 9 };
const TARGET_RATIO = 1;

// Every limit on, at the defaults: explicit, so the figure cannot quietly measure an unbounded run.
const LIMITS: JsonPatchLimits = { ...DEFAULT_JSON_PATCH_LIMITS };

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** A set of patches applied together as one unit of work. */
interface Suite {
  readonly name: string;
  readonly description: string;
  readonly items: readonly Workload[];
  readonly operations: number;
}

type Library = 'hyphae' | 'fast-json-patch' | 'rfc6902 (clone timed)' | 'rfc6902 (clone not timed)';

interface Case {
  readonly suite: Suite;
  readonly library: Library;
  /** Untimed work before one iteration (rfc6902's clones when they are not timed). */
  readonly prepare: () => unknown;
  readonly run: (prepared: unknown) => unknown;
}

const clone = (value: unknown): unknown => JSON.parse(JSON.stringify(value));
let sink: unknown;

function casesOf(suite: Suite): Case[] {
  const items = suite.items;
  const none = () => undefined;
  return [
    {
      suite,
      library: 'hyphae',
      prepare: none,
      run: () => {
        for (const item of items) sink = applyJsonPatch(item.document, item.patch, LIMITS);
      },
    },
    {
      suite,
      library: 'fast-json-patch',
      prepare: none,
      run: () => {
        for (const item of items)
          sink = jsonPatch.applyPatch(item.document, item.patch as never, true, false).newDocument;
      },
    },
    {
      suite,
      library: 'rfc6902 (clone timed)',
      prepare: none,
      run: () => {
        for (const item of items) sink = rfc6902ApplyPatch(clone(item.document), item.patch as never);
      },
    },
    {
      suite,
      library: 'rfc6902 (clone not timed)',
      prepare: () => items.map((item) => clone(item.document)),
      run: (prepared) => {
        const documents = prepared as unknown[];
        for (const [i, item] of items.entries()) sink = rfc6902ApplyPatch(documents[i], item.patch as never);
      },
    },
  ];
}

/** Run each library once on each suite and check they agree, before timing anything. */
function checkAgreement(suite: Suite): void {
  for (const item of suite.items) {
    const ours = canonicalJson(applyJsonPatch(item.document, item.patch, LIMITS));
    const theirs = canonicalJson(
      jsonPatch.applyPatch(item.document, clone(item.patch) as never, true, false).newDocument,
    );
    const document = clone(item.document);
    const errors = rfc6902ApplyPatch(document, clone(item.patch) as never).filter((error) => error !== null);
    if (errors.length > 0) throw new Error(`rfc6902 refused ${item.name}: ${String(errors[0])}`);
    if (ours !== theirs || ours !== canonicalJson(document)) throw new Error(`The libraries disagree on ${item.name}`);
  }
}

/** One timed stretch of a case: units of work per second, by the wall clock and by process CPU time. */
interface RoundRate {
  readonly wall: number;
  readonly cpu: number;
}

/**
 * Time iterations until `ms` of timed work, or 4 × `ms` of wall clock (untimed preparation, such as
 * rfc6902's clones, can dwarf the timed part); at least one iteration, however long it takes.
 */
function timeRound(timed: Case, ms: number): RoundRate {
  let wallMs = 0;
  let cpuUs = 0;
  let units = 0;
  const deadline = performance.now() + 4 * ms;
  while (units === 0 || (wallMs < ms && performance.now() < deadline)) {
    const prepared = timed.prepare();
    const cpu = process.cpuUsage();
    const started = performance.now();
    timed.run(prepared);
    wallMs += performance.now() - started;
    const spent = process.cpuUsage(cpu);
    cpuUs += spent.user + spent.system;
    units++;
  }
  return { wall: (units * 1000) / wallMs, cpu: (units * 1_000_000) / Math.max(cpuUs, 1) };
}

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

interface Measured {
  readonly timed: Case;
  /** Units of work per second, one entry per round. */
  readonly perRound: RoundRate[];
}

function measure(cases: readonly Case[]): Measured[] {
  const runs = cases.map((timed) => ({ timed, perRound: [] as RoundRate[] }));
  for (const { timed } of runs) timeRound(timed, plan.warmupMs);
  for (let round = 0; round < plan.rounds; round++) {
    // Rotate the order each round, so that drift in the machine's load lands on every case alike.
    for (let k = 0; k < runs.length; k++) {
      const run = runs[(k + round) % runs.length] as Measured;
      collectGarbage();
      run.perRound.push(timeRound(run.timed, plan.roundMs));
    }
  }
  return runs;
}

interface Row {
  readonly suite: Suite;
  readonly library: Library;
  readonly patchesPerSecond: number;
  readonly low: number;
  readonly high: number;
  /** Median over rounds of this case ÷ fast-json-patch in the same round; null for fast-json-patch itself. */
  readonly ratio: number | null;
  /** The same ratio on process CPU time (steadier when other processes compete for the cores). */
  readonly cpuRatio: number | null;
}

function rowsOf(measured: readonly Measured[]): Row[] {
  return measured.map(({ timed, perRound }) => {
    const baseline = measured.find((m) => m.timed.suite === timed.suite && m.timed.library === 'fast-json-patch');
    const ratioOf = (pick: (rate: RoundRate) => number): number | null =>
      timed.library === 'fast-json-patch' || baseline === undefined
        ? null
        : median(perRound.map((rate, i) => pick(rate) / pick(baseline.perRound[i] as RoundRate)));
    const perPatch = perRound.map((rate) => rate.wall * timed.suite.items.length);
    return {
      suite: timed.suite,
      library: timed.library,
      patchesPerSecond: median(perPatch),
      low: Math.min(...perPatch),
      high: Math.max(...perPatch),
      ratio: ratioOf((rate) => rate.wall),
      cpuRatio: ratioOf((rate) => rate.cpu),
    };
  });
}

/** Four significant digits: figures span 0.4 to 200,000 per second. */
const significant = (value: number): number => Number(value.toPrecision(4));
const rate = (value: number): string =>
  value >= 100 ? Math.round(value).toLocaleString('en-US') : value.toFixed(value >= 10 ? 1 : 2);

function figures(
  rows: readonly Row[],
): { name: string; unit: string; value: number; baseline: number | null; ratio: number | null }[] {
  const out = [];
  for (const row of rows) {
    const baseline = rows.find((r) => r.suite === row.suite && r.library === 'fast-json-patch') as Row;
    const opsPerPatch = row.suite.operations / row.suite.items.length;
    const isBaseline = row.library === 'fast-json-patch';
    out.push({
      name: `${row.suite.name} — ${row.library}`,
      unit: 'patches/s (median of rounds)',
      value: significant(row.patchesPerSecond),
      baseline: isBaseline ? null : significant(baseline.patchesPerSecond),
      ratio: row.ratio === null ? null : significant(row.ratio),
    });
    if (row.cpuRatio !== null) {
      out.push({
        name: `${row.suite.name} — ${row.library} — ratio on CPU time`,
        unit: '× fast-json-patch (median of per-round ratios of process CPU time)',
        value: significant(row.cpuRatio),
        baseline: 1,
        ratio: significant(row.cpuRatio),
      });
    }
    out.push({
      name: `${row.suite.name} — ${row.library} — operations`,
      unit: 'operations/s (median of rounds)',
      value: significant(row.patchesPerSecond * opsPerPatch),
      baseline: isBaseline ? null : significant(baseline.patchesPerSecond * opsPerPatch),
      ratio: row.ratio === null ? null : significant(row.ratio),
    });
  }
  return out;
}

function movesAndCopies(suite: Suite | undefined): number {
  const patch = suite?.items[0]?.patch ?? [];
  return patch.filter((operation) => operation.op === 'move' || operation.op === 'copy').length;
}

function machine(): string {
  const cpu = cpus();
  return `Node ${process.version}, ${cpu[0]?.model ?? 'unknown CPU'} (${cpu.length} cores), ${platform()} ${release()} ${arch()}`;
}

function commandLine(): string {
  return ['node', ...process.execArgv, relative(process.cwd(), process.argv[1] ?? ''), ...process.argv.slice(2)].join(
    ' ',
  );
}

function targetLines(rows: readonly Row[]): string[] {
  return rows
    .filter((row) => row.library === 'hyphae')
    .map((row) => {
      const ratio = row.ratio ?? Number.NaN;
      return `${row.suite.name}: ${ratio.toFixed(2)}× fast-json-patch → ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'}`;
    });
}

function markdown(rows: readonly Row[], suites: readonly Suite[], load: readonly number[], excluded: string): string {
  const right = (title: string) => ({ title, align: 'right' as const });
  const table = markdownTable(
    [
      { title: 'workload' },
      { title: 'library' },
      right('patches/s (median)'),
      right('operations/s'),
      right('range over rounds (patches/s)'),
      right('× fast-json-patch'),
      right('× on CPU time'),
    ],
    rows.map((row) => [
      row.suite.name,
      row.library,
      rate(row.patchesPerSecond),
      rate((row.patchesPerSecond * row.suite.operations) / row.suite.items.length),
      `${rate(row.low)} – ${rate(row.high)}`,
      row.ratio === null ? '1.00× (baseline)' : `${row.ratio.toFixed(2)}×`,
      row.cpuRatio === null ? '—' : `${row.cpuRatio.toFixed(2)}×`,
    ]),
  );
  return [
    '# JSON Patch benchmark',
    '',
    `- Command: \`${commandLine()}\` (${quick ? 'quick' : 'full'} mode: ${plan.warmupMs} ms warm-up per case, then ${plan.rounds} rounds of ${plan.roundMs} ms per case, cases rotated each round)`,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machine()}; load average (1 / 5 / 15 min) ${load.map((l) => l.toFixed(2)).join(' / ')} at start, ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' / ')} at end`,
    `- Libraries: fast-json-patch ${jsonPatchVersion}, rfc6902 ${rfc6902Version}; hyphae with every limit on (${Object.entries(
      LIMITS,
    )
      .map(([name, value]) => `${name} ${value}`)
      .join(', ')})`,
    '',
    'Workloads:',
    '',
    ...suites.map((suite) => `- **${suite.name}**: ${suite.description}`),
    `- ${excluded}`,
    '',
    'How to read it: each figure is the median over rounds of patches applied per second (wall clock, each',
    'iteration timed alone). The ratio is the median over rounds of the case ÷ fast-json-patch *in the same round*,',
    'so load that shifts between rounds cancels out; the CPU-time ratio is the same on process CPU time.',
    'fast-json-patch runs `applyPatch(doc, patch, true, false)`:',
    'validation on, document not mutated (it deep-clones the document once with `JSON.parse(JSON.stringify())`).',
    'rfc6902 mutates its input, so it gets a `JSON.parse(JSON.stringify())` clone, once inside the timing and once outside it.',
    '',
    ...table,
    '',
    `Target (issue 7): ≥ ${TARGET_RATIO.toFixed(1)}× fast-json-patch's throughput with every limit on.`,
    '',
    ...targetLines(rows).map((line) => `- ${line}`),
    '',
    'Why the gaps are what they are:',
    '',
    '- hyphae walks the input document once (checking it is plain JSON and counting its canonical bytes, without',
    '  building a string), then copies only the containers on each pointer path, each at most once per call; the',
    '  result shares every untouched subtree with the input. The result size is tracked as an O(1) upper bound per',
    '  operation and re-measured only if that bound passes `maxDocumentBytes`.',
    '- fast-json-patch clones the whole document up front; with validation on, each `move` and `copy` also re-runs',
    '  `validate()`, which deep-clones the whole document again to look the `from` pointer up. That is why the mixed',
    `  workload (${movesAndCopies(suites[0])} of its operations are moves or copies) costs it far more than the one without them.`,
    '- rfc6902 applies in place; its cost is mostly the clone it needs to leave the caller’s document alone.',
    '',
  ].join('\n');
}

const versionOf = (name: string): string =>
  (
    JSON.parse(readFileSync(new URL(`../../node_modules/${name}/package.json`, import.meta.url), 'utf8')) as {
      version: string;
    }
  ).version;
const jsonPatchVersion = versionOf('fast-json-patch');
const rfc6902Version = versionOf('rfc6902');

function designSuite(name: string, description: string, keep: (operation: Record<string, unknown>) => boolean): Suite {
  // Parsed from text, as an application's document would be (flat strings, parser-made objects).
  const document = clone(designDocument(1_000_000)) as Record<string, unknown>;
  const patch = designPatch(document, 400).filter(keep).slice(0, 100);
  const bytes = Buffer.byteLength(canonicalJson(document));
  const counts = new Map<string, number>();
  for (const operation of patch) counts.set(String(operation.op), (counts.get(String(operation.op)) ?? 0) + 1);
  const mix = [...counts].map(([op, count]) => `${count} ${op}`).join(', ');
  return {
    name,
    description: `${description}: a ${(bytes / 1_000_000).toFixed(2)} MB design document (${(document.sections as unknown[]).length} sections of 6 blocks) and one patch of ${patch.length} operations (${mix}) spread over it`,
    items: [{ name, document, patch }],
    operations: patch.length,
  };
}

async function main(): Promise<void> {
  const load = loadavg();
  const conformanceRoot = new URL('../../../shared/conformance/json-patch/', import.meta.url);
  const all = conformanceWorkloads(conformanceRoot);
  // rfc6902 applies in place, so it cannot replace the document root: leave those records out for everyone.
  const conformance = all.filter((item) => !item.patch.some((operation) => operation.path === ''));
  const suites: Suite[] = [
    designSuite('1 MB × 100 ops', 'every operation', () => true),
    designSuite('1 MB × 100 ops, no move/copy', 'add, replace, remove and test only', (operation) =>
      ['add', 'replace', 'remove', 'test'].includes(String(operation.op)),
    ),
    {
      name: 'conformance documents',
      description: `the ${conformance.length} enabled records of json-patch-tests (\`tests.json\`, \`spec_tests.json\`) that expect a result, applied one after another as one unit (${conformance.reduce((n, item) => n + item.patch.length, 0)} operations in all)`,
      items: conformance,
      operations: conformance.reduce((n, item) => n + item.patch.length, 0),
    },
  ];
  const excluded = `Left out of the conformance workload: ${all.length - conformance.length} records that replace the document root (rfc6902 cannot, as it applies in place).`;
  if (only !== undefined) suites.splice(0, suites.length, ...suites.filter((suite) => suite.name.includes(only)));
  for (const suite of suites) checkAgreement(suite);
  const snapshot = canonicalJson(suites.map((suite) => suite.items));

  console.log(`${commandLine()}: ${quick ? 'quick' : 'full'} run, ${plan.rounds} rounds`);
  const rows: Row[] = [];
  for (const suite of suites) {
    const suiteRows = rowsOf(measure(casesOf(suite)));
    for (const row of suiteRows) {
      console.log(
        `  ${suite.name.padEnd(30)} ${row.library.padEnd(26)} ${rate(row.patchesPerSecond).padStart(10)} patches/s  ${row.ratio === null ? 'baseline' : `${row.ratio.toFixed(2)}× (CPU ${row.cpuRatio?.toFixed(2)}×)`}`,
      );
    }
    rows.push(...suiteRows);
  }
  if (canonicalJson(suites.map((suite) => suite.items)) !== snapshot) {
    throw new Error('A library wrote to a benchmark input: the figures are not comparable');
  }
  for (const line of targetLines(rows)) console.log(`target: ${line}`);
  await mkdir('bench/results', { recursive: true });
  await writeFile('bench/results/json-patch.json', `${JSON.stringify(figures(rows), null, 2)}\n`);
  await writeFile('bench/results/json-patch.md', markdown(rows, suites, load, excluded));
  if (sink === undefined) throw new Error('Nothing was applied');
  console.log('wrote bench/results/json-patch.json and bench/results/json-patch.md');
}

await main();
