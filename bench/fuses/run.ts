/**
 * Fuse benchmark: what `checkToolCall` (permission + loop) costs per call against a bare function
 * call of the same shape, and with a 5-field field-spec validation when `src/boundary` is present.
 *
 *   node --import tsx bench/fuses/run.ts            # full run (~30 s)
 *   node --import tsx bench/fuses/run.ts --quick    # short run (~8 s)
 *
 * Writes bench/results/fuses.json and bench/results/fuses.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { arch, cpus, loadavg, platform, release } from 'node:os';
import { relative } from 'node:path';
import type { Figure } from '../lib/area-report.js';
import type { Stats } from '../lib/histogram.js';
import { markdownTable } from '../lib/markdown-table.js';
import { measureCases, type Plan, roundsText } from '../lib/measure.js';
import { CASE, FIVE_FIELD_SPEC, fuseCases, sinkValue, type Validator } from './cases.js';

const quick = process.argv.includes('--quick');
const plan: Plan = quick
  ? { warmupMs: 300, durationMs: 1_000, rounds: 3 }
  : { warmupMs: 1_000, durationMs: 5_000, rounds: 5 };
const TARGET_US = 3;

async function loadValidator(): Promise<{ validator: Validator | null; note: string }> {
  try {
    const boundary = (await import('../../src/boundary/compile-schema.js')) as {
      compileSchema(spec: unknown): Validator;
    };
    const validator = boundary.compileSchema(FIVE_FIELD_SPEC);
    const sample = { customer_id: 'c1', limit: 10, include_archived: false, sort: 'desc', page: 1 };
    if (!validator.validate(sample).ok) throw new Error('the 5-field spec refused a valid sample');
    return {
      validator,
      note: '`src/boundary/compile-schema.ts` present: the combined case validates a 5-field field spec',
    };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return { validator: null, note: `\`src/boundary\` not usable (${reason}): checkToolCall is measured alone` };
  }
}

const round = (value: number, digits = 3): number => Number(value.toFixed(digits));
const us = (value: number): string => value.toFixed(3);

function machine(): string {
  const cpu = cpus();
  return `Node ${process.version}, ${cpu[0]?.model ?? 'unknown CPU'} (${cpu.length} cores), ${platform()} ${release()} ${arch()}`;
}

function commandLine(): string {
  return ['node', ...process.execArgv, relative(process.cwd(), process.argv[1] ?? ''), ...process.argv.slice(2)].join(
    ' ',
  );
}

function figures(stats: ReadonlyMap<string, Stats>): Figure[] {
  const bare = stats.get(CASE.bare) as Stats;
  const out: Figure[] = [];
  for (const [name, s] of stats) {
    if (name === CASE.bare) continue;
    for (const [label, value, base] of [
      ['p50', s.p50Us, bare.p50Us],
      ['p99', s.p99Us, bare.p99Us],
      ['mean', s.meanUs, bare.meanUs],
    ] as const) {
      out.push({
        name: `${name} — ${label}`,
        unit: 'µs/call',
        value: round(value),
        baseline: round(base),
        ratio: round(value / base, 2),
      });
    }
  }
  for (const [label, value] of [
    ['p50', bare.p50Us],
    ['p99', bare.p99Us],
    ['mean', bare.meanUs],
  ] as const) {
    out.push({ name: `${CASE.bare} — ${label}`, unit: 'µs/call', value: round(value), baseline: null, ratio: null });
  }
  return out;
}

function markdown(stats: ReadonlyMap<string, Stats>, note: string, target: string, load: readonly number[]): string {
  const bare = stats.get(CASE.bare) as Stats;
  const right = (title: string) => ({ title, align: 'right' as const });
  const rows = [...stats].map(([name, s]) => [
    name,
    String(s.ops),
    us(s.p50Us),
    us(s.p99Us),
    us(s.meanUs),
    name === CASE.bare ? '—' : `${(s.p50Us / bare.p50Us).toFixed(2)}×`,
    name === CASE.bare ? '—' : us(s.p50Us - bare.p50Us),
  ]);
  return [
    '# Fuse benchmark',
    '',
    `- Command: \`${commandLine()}\` (${quick ? 'quick' : 'full'} mode: ${plan.warmupMs} ms warm-up, then ${roundsText(plan)})`,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: ${machine()}; load average (1 min) ${load[0]?.toFixed(2)} at start, ${loadavg()[0]?.toFixed(2)} at end`,
    `- ${note}`,
    '',
    'Every iteration is one call, timed alone with `performance.now()` (so about 0.05–0.1 µs of timer cost is in',
    'every figure, the baseline included). Calls never repeat (each has a fresh `customer_id`), so the loop fuse',
    'takes its allow path and its window stays full. Ratio = case p50 / baseline p50; overhead = case p50 − baseline p50.',
    '',
    ...markdownTable(
      [{ title: 'case' }, ...['calls', 'p50 µs', 'p99 µs', 'mean µs', 'ratio (p50)', 'overhead µs (p50)'].map(right)],
      rows,
    ),
    '',
    `Target (issue): ${target}`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  const load = loadavg();
  const { validator, note } = await loadValidator();
  console.log(`${commandLine()}: ${quick ? 'quick' : 'full'} run; ${note}`);
  const cases = fuseCases(validator);
  const measured = await measureCases(cases, plan);
  const stats = new Map<string, Stats>(cases.map((c, i) => [c.name, measured[i] as Stats]));
  for (const [name, s] of stats) {
    console.log(
      `  ${name.padEnd(64)} p50 ${us(s.p50Us)} µs  p99 ${us(s.p99Us)} µs  mean ${us(s.meanUs)} µs  (${s.ops} calls)`,
    );
  }
  const measuredCase = validator === null ? CASE.check : CASE.combined;
  const p50 = stats.get(measuredCase)?.p50Us ?? Number.NaN;
  const target = `≤ ${TARGET_US} µs p50 for ${measuredCase}: measured ${us(p50)} µs → ${p50 <= TARGET_US ? 'met' : 'MISSED'}`;
  console.log(`target: ${target}`);
  await mkdir('bench/results', { recursive: true });
  await writeFile('bench/results/fuses.json', `${JSON.stringify(figures(stats), null, 2)}\n`);
  await writeFile('bench/results/fuses.md', markdown(stats, note, target, load));
  console.log(`wrote bench/results/fuses.json and bench/results/fuses.md (sink ${sinkValue()})`);
}

await main();
