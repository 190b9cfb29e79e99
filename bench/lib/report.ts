/**
 * The ledger bench's outputs: `bench/results/ledger.json` (figures) and `bench/results/ledger.md`, which
 * `bench/aggregate.ts` joins into `bench/results.json` and `bench/RESULTS.md`.
 */
import { writeFile } from 'node:fs/promises';
import type { CaseKind } from '../ledger/cases.js';
import type { WriteCount } from '../ledger/write-counts.js';
import { type Figure, load, machine, round, us } from './area-report.js';
import type { Stats } from './histogram.js';
import { type Column, markdownTable } from './markdown-table.js';
import { type Plan, roundsText } from './measure.js';

/** One measured case and the baseline it is compared with. */
export interface Row {
  readonly backend: string;
  readonly kind: CaseKind;
  readonly name: string;
  readonly stats: Stats;
  readonly baseline: { readonly name: string; readonly stats: Stats };
}

/** A target and whether this run met it. */
export interface TargetCheck {
  readonly text: string;
  readonly measured: string;
  readonly met: boolean;
}

/** Everything one run produced. */
export interface Report {
  readonly command: string;
  readonly mode: 'full' | 'quick';
  readonly plan: Plan;
  readonly rows: readonly Row[];
  readonly baselines: readonly { readonly backend: string; readonly text: string }[];
  readonly writes: readonly WriteCount[];
  readonly targets: readonly TargetCheck[];
  readonly skipped: readonly string[];
  /** 1-minute load average when the run started (other processes competing for the CPUs skew figures). */
  readonly loadAtStart: number;
}

/** Ledgered mean divided by baseline mean. */
export function ratioOf(row: Row): number {
  return row.stats.meanUs / row.baseline.stats.meanUs;
}

/** Ledgered mean minus baseline mean, in µs. */
export function overheadOf(row: Row): number {
  return row.stats.meanUs - row.baseline.stats.meanUs;
}

/** The figures: per case mean vs baseline, CPU time, per-call overhead, write counts. */
export function figuresOf(report: Report): Figure[] {
  const figures: Figure[] = [];
  for (const row of report.rows) {
    const baseline = round(row.baseline.stats.meanUs, 3);
    figures.push({
      name: row.name,
      unit: 'µs/op (mean)',
      value: round(row.stats.meanUs, 3),
      baseline,
      ratio: round(ratioOf(row)),
    });
    figures.push({
      name: `${row.name} — CPU time`,
      unit: 'CPU µs/op',
      value: round(row.stats.cpuUs, 3),
      baseline: round(row.baseline.stats.cpuUs, 3),
      ratio: round(row.stats.cpuUs / row.baseline.stats.cpuUs),
    });
    figures.push({
      name: `${row.name} — overhead over baseline`,
      unit: 'µs/op',
      value: round(overheadOf(row), 3),
      baseline: null,
      ratio: null,
    });
  }
  for (const count of report.writes) {
    figures.push({
      name: `${count.backend}: storage writes per ${count.kind}`,
      unit: 'writes/call',
      value: count.writes,
      baseline: count.expectedWrites,
      ratio: round(count.writes / count.expectedWrites),
    });
  }
  return figures;
}

const right = (title: string): Column => ({ title, align: 'right' });

function latencyTable(report: Report): string[] {
  const columns = [
    { title: 'case' },
    ...['ops', 'mean µs', 'p50 µs', 'p99 µs', 'CPU µs', 'baseline mean µs', 'baseline CPU µs'].map(right),
    ...['ratio (mean)', 'ratio (p50)', 'ratio (CPU)', 'overhead µs (mean)', 'overhead µs (CPU)'].map(right),
  ];
  return markdownTable(
    columns,
    report.rows.map((row) => {
      const { stats, baseline } = row;
      return [
        row.name,
        String(stats.ops),
        us(stats.meanUs),
        us(stats.p50Us),
        us(stats.p99Us),
        us(stats.cpuUs),
        us(baseline.stats.meanUs),
        us(baseline.stats.cpuUs),
        `${ratioOf(row).toFixed(2)}×`,
        `${(stats.p50Us / baseline.stats.p50Us).toFixed(2)}×`,
        `${(stats.cpuUs / baseline.stats.cpuUs).toFixed(2)}×`,
        us(overheadOf(row)),
        us(stats.cpuUs - baseline.stats.cpuUs),
      ];
    }),
  );
}

function baselineTable(report: Report): string[] {
  const seen = new Map<string, Stats>();
  for (const row of report.rows) seen.set(row.baseline.name, row.baseline.stats);
  return markdownTable(
    [{ title: 'baseline' }, ...['ops', 'mean µs', 'p50 µs', 'p99 µs', 'CPU µs'].map(right)],
    [...seen].map(([name, stats]) => [
      name,
      String(stats.ops),
      us(stats.meanUs),
      us(stats.p50Us),
      us(stats.p99Us),
      us(stats.cpuUs),
    ]),
  );
}

function writesTable(report: Report): string[] {
  return markdownTable(
    [
      { title: 'backend' },
      { title: 'case' },
      ...['create', 'update', 'reads', 'writes', 'expected'].map(right),
      { title: 'doc bytes' },
      { title: 'ok' },
    ],
    report.writes.map((count) => [
      count.backend,
      count.kind,
      String(count.create),
      String(count.update),
      String(count.reads),
      String(count.writes),
      String(count.expectedWrites),
      count.docs.map((doc) => Buffer.byteLength(doc)).join(' / '),
      count.ok ? '✓' : '✗',
    ]),
  );
}

function targetsTable(report: Report): string[] {
  return markdownTable(
    [{ title: 'target' }, { title: 'measured' }, { title: 'met' }],
    report.targets.map((t) => [t.text, t.measured, t.met ? 'yes' : '**no**']),
  );
}

/** The Markdown report. */
export function markdownOf(report: Report, date: Date): string {
  const { plan } = report;
  return [
    '# Ledger benchmark',
    '',
    `- Command: \`${report.command}\` (${report.mode} mode: ${plan.warmupMs} ms warm-up, then ${roundsText(plan)})`,
    `- Date: ${date.toISOString()}`,
    `- Machine: ${machine()}; load average (1 min) ${report.loadAtStart.toFixed(2)} at start, ${load().toFixed(2)} at end`,
    '- Files: SQLite databases in a fresh temporary directory (removed afterwards); WAL mode as the driver opens them',
    ...(report.skipped.length === 0 ? [] : [`- Not run: ${report.skipped.join('; ')}`]),
    '',
    'Every iteration of a ledgered case is a whole call through `ledger.tool` (`idempotent_mutate`, no-op body, default',
    'ledger options): `call` and `sideEffect` use a fresh tool call id each time, `replay` repeats one completed call.',
    'The library runs as plain JavaScript (`bench/run-bundled.mjs` bundles it with esbuild), as it ships.',
    'Ratio = ledgered mean / baseline mean; overhead = ledgered mean − baseline mean. Each backend is measured in a',
    'process of its own; its baselines run in that process, interleaved round by round with the ledgered cases.',
    'Targets are judged on wall-clock means; CPU µs',
    '(process user + system time per call) is shown beside them because it holds still when other processes load',
    'the machine (compare the load average above with the core count). Durable backends wait on fsync (SQLite FULL,',
    'PostgreSQL), whose latency moves with other disk traffic on a shared machine; the p50 and CPU ratios show how',
    'much of a difference is the ledger and how much is the disk.',
    '',
    ...report.baselines.map((b) => `- ${b.backend} baseline: ${b.text}`),
    '',
    '## Latency per call',
    '',
    ...latencyTable(report),
    '',
    '## Baselines',
    '',
    ...baselineTable(report),
    '',
    '## Storage round trips per call (counting proxy around `create` / `update` / reads)',
    '',
    'Expected: fast path `create` + `update` (2 writes), `sideEffect()` one more `update` (3), replay one `create`',
    'that meets the completed record (no update). Doc bytes: the JSON each write hands the driver.',
    '',
    ...writesTable(report),
    '',
    '## Targets',
    '',
    ...targetsTable(report),
    '',
  ].join('\n');
}

/** Write `bench/results/ledger.json` and `bench/results/ledger.md`. */
export async function writeReport(report: Report, date = new Date()): Promise<void> {
  await writeFile(
    new URL('../results/ledger.json', import.meta.url),
    `${JSON.stringify(figuresOf(report), null, 2)}\n`,
  );
  await writeFile(new URL('../results/ledger.md', import.meta.url), markdownOf(report, date));
}

export type { Figure } from './area-report.js';
