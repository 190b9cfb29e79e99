/**
 * Tool-boundary benchmark: what a 5-field argument validation costs next to a bare function call.
 *
 *   node --import tsx bench/boundary/run.ts            # full run (~20 s)
 *   node --import tsx bench/boundary/run.ts --quick    # short run (~5 s)
 *
 * Sub-microsecond operations cannot be timed one by one (`performance.now()` costs about as much),
 * so every sample times a batch of calls and records the mean per call of that batch; percentiles
 * are over batches. Cases run in interleaved rounds so machine drift lands on all of them alike.
 * Writes bench/results/boundary.json and bench/results/boundary.md.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { arch, cpus, loadavg, platform, release } from 'node:os';
import { performance } from 'node:perf_hooks';
import { z } from 'zod';
import { bounded } from '../../src/boundary/bounded.js';
import { compileSchema } from '../../src/boundary/compile-schema.js';
import { validate } from '../../src/boundary/validate.js';
import { Histogram, type Stats } from '../lib/histogram.js';
import { roundsText } from '../lib/measure.js';

const quick = process.argv.includes('--quick');
const plan = quick ? { warmupMs: 300, durationMs: 1200, rounds: 3 } : { warmupMs: 1000, durationMs: 5000, rounds: 5 };

/** The same 5-field spec the fuse benchmark validates. */
const SPEC = {
  customer_id: { type: 'string', pattern: '^c\\d+$' },
  limit: { type: 'integer', minimum: 1, maximum: 100 },
  include_archived: { type: 'boolean' },
  sort: { type: 'string', enum: ['asc', 'desc'] },
  page: { type: 'integer', minimum: 0 },
} as const;
const ZOD = z.strictObject({
  customer_id: z.string().regex(/^c\d+$/),
  limit: z.number().int().min(1).max(100),
  include_archived: z.boolean(),
  sort: z.enum(['asc', 'desc']),
  page: z.number().int().min(0),
});
const ARGS = Object.freeze({ customer_id: 'c42', limit: 10, include_archived: false, sort: 'desc', page: 3 });
const BAD_ARGS = Object.freeze({ ...ARGS, customer_id: 'C-42' });

let sink = 0;
function bare(args: typeof ARGS): boolean {
  return args.customer_id.length > 0;
}
async function bareAsync(args: typeof ARGS): Promise<boolean> {
  return args.customer_id.length > 0;
}

interface Case {
  readonly name: string;
  readonly baseline: string;
  readonly batch: number;
  readonly op: () => unknown;
}

const compiled = compileSchema(SPEC);
const tool = bounded({ name: 'search_orders', sideEffectClass: 'read', schema: SPEC }, bareAsync);
const BASE = 'bare function call';
const BASE_ASYNC = 'bare async function call (awaited)';
const cases: Case[] = [
  { name: BASE, baseline: BASE, batch: 2000, op: () => bare(ARGS) },
  { name: '5-field field spec: compiled.validate', baseline: BASE, batch: 2000, op: () => compiled.validate(ARGS).ok },
  { name: '5-field field spec: validate(spec, args)', baseline: BASE, batch: 2000, op: () => validate(SPEC, ARGS).ok },
  { name: '5-field zod 4 (Standard Schema): validate', baseline: BASE, batch: 2000, op: () => validate(ZOD, ARGS).ok },
  {
    name: '5-field field spec, refused (pattern)',
    baseline: BASE,
    batch: 500,
    op: () => compiled.validate(BAD_ARGS).ok,
  },
  { name: BASE_ASYNC, baseline: BASE_ASYNC, batch: 500, op: () => bareAsync(ARGS) },
  { name: 'bounded tool call, 5-field spec (awaited)', baseline: BASE_ASYNC, batch: 500, op: () => tool(ARGS) },
];

async function sample(c: Case): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < c.batch; i++) {
    const result = c.op();
    if (result instanceof Promise) sink += (await result) ? 1 : 0;
    else sink += result ? 1 : 0;
  }
  return ((performance.now() - started) * 1000) / c.batch;
}

async function runFor(c: Case, ms: number, histogram: Histogram | null): Promise<void> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const perOp = await sample(c);
    histogram?.record(perOp);
  }
}

async function measure(): Promise<Map<string, Stats>> {
  const runs = cases.map((c) => ({ c, histogram: new Histogram() }));
  for (const { c } of runs) await runFor(c, plan.warmupMs, null);
  for (let round = 0; round < plan.rounds; round++) {
    for (const { c, histogram } of runs) await runFor(c, plan.durationMs / plan.rounds, histogram);
  }
  return new Map(runs.map(({ c, histogram }) => [c.name, histogram.stats()]));
}

interface ResultRow {
  readonly name: string;
  readonly unit: string;
  readonly value: number;
  readonly baseline: number;
  readonly ratio: number;
}

const round3 = (n: number): number => Math.round(n * 1000) / 1000;

async function main(): Promise<void> {
  const loadStart = loadavg()[0] ?? 0;
  const stats = await measure();
  const loadEnd = loadavg()[0] ?? 0;
  const rows: ResultRow[] = [];
  const lines: string[] = [];
  for (const c of cases) {
    const s = stats.get(c.name) as Stats;
    const b = stats.get(c.baseline) as Stats;
    rows.push({
      name: `${c.name} — p50`,
      unit: 'µs/call',
      value: round3(s.p50Us),
      baseline: round3(b.p50Us),
      ratio: round3(s.p50Us / b.p50Us),
    });
    rows.push({
      name: `${c.name} — mean`,
      unit: 'µs/call',
      value: round3(s.meanUs),
      baseline: round3(b.meanUs),
      ratio: round3(s.meanUs / b.meanUs),
    });
    const ratio = c.name === c.baseline ? '—' : `${(s.p50Us / b.p50Us).toFixed(2)}×`;
    lines.push(
      `| ${c.name} | ${s.ops} | ${s.p50Us.toFixed(3)} | ${s.p99Us.toFixed(3)} | ${s.meanUs.toFixed(3)} | ${c.baseline} | ${ratio} |`,
    );
    console.log(
      `${c.name.padEnd(48)} p50 ${s.p50Us.toFixed(3)} µs  p99 ${s.p99Us.toFixed(3)}  mean ${s.meanUs.toFixed(3)}  ${ratio}`,
    );
  }
  const validation = stats.get('5-field field spec: compiled.validate') as Stats;
  const command = `node --import tsx bench/boundary/run.ts${quick ? ' --quick' : ''}`;
  const md = [
    '# Tool-boundary benchmark',
    '',
    `- Command: \`${command}\` (${plan.warmupMs} ms warm-up, then ${roundsText(plan)})`,
    `- Date: ${new Date().toISOString()}`,
    `- Machine: Node ${process.version}, ${cpus()[0]?.model ?? 'unknown CPU'} (${cpus().length} cores), ${platform()} ${release()} ${arch()}; load average (1 min) ${loadStart.toFixed(2)} at start, ${loadEnd.toFixed(2)} at end`,
    '',
    'Each sample times a batch of calls (2 000 sync, 500 async) and records the mean per call; p50/p99 are',
    'over samples, so they describe batches, not single calls. Ratio = case p50 / baseline p50, measured in the same run.',
    'On a loaded machine (see the load average) p99 and mean mostly measure descheduled batches; read p50.',
    '',
    '| case | samples | p50 µs | p99 µs | mean µs | baseline | ratio (p50) |',
    '| --- | ---: | ---: | ---: | ---: | --- | ---: |',
    ...lines,
    '',
    `Budget (issue): checkToolCall + a 5-field validation ≤ 3 µs p50; the validation's share here is ${validation.p50Us.toFixed(3)} µs p50`,
    '(checkToolCall itself is measured by `bench/fuses/run.ts`).',
    '',
  ].join('\n');
  await mkdir(new URL('../results/', import.meta.url), { recursive: true });
  await writeFile(new URL('../results/boundary.json', import.meta.url), `${JSON.stringify(rows, null, 2)}\n`);
  await writeFile(new URL('../results/boundary.md', import.meta.url), md);
  if (sink === -1) console.log('unreachable');
}

await main();
