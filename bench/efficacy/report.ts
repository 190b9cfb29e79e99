/**
 * The efficacy bench's outputs: `bench/results/efficacy.json` (figures: the hyphae run's count
 * against the stock run's) and `bench/results/efficacy.md`, which `bench/aggregate.ts` gathers.
 */
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { type Figure, machine } from '../lib/area-report.js';
import { markdownTable } from '../lib/markdown-table.js';
import { type EfficacyRow, frameworks, versionOf } from './efficacy.js';
import { MAX_TOKENS } from './guards.js';
import type { RunFigures } from './harness.js';
import { scenarios } from './scenarios.js';
import { PAYMENT_MS } from './tools.js';

const METRICS = [
  ['tool executions', 'executions', (run: RunFigures) => run.toolExecutions],
  ['model calls', 'calls', (run: RunFigures) => run.modelCalls],
  ['tokens', 'tokens', (run: RunFigures) => run.tokens],
  ['provider effects', 'effects', (run: RunFigures) => run.effects],
  ['provider 400s', 'requests', (run: RunFigures) => run.rejected],
] as const;

/** The figures: every count of the hyphae run, with the stock run's as the baseline. */
export function figuresOf(rows: readonly EfficacyRow[]): Figure[] {
  return rows.flatMap((row) =>
    METRICS.map(([metric, unit, read]) => {
      const value = read(row.hyphae);
      const baseline = read(row.stock);
      return {
        name: `${row.framework.label}: ${row.scenario.title} — ${metric} (hyphae vs stock)`,
        unit,
        value,
        baseline,
        ratio: baseline === 0 ? null : Number((value / baseline).toFixed(2)),
      };
    }),
  );
}

const right = (title: string) => ({ title, align: 'right' as const });

function scenarioSection(rows: readonly EfficacyRow[], index: number): string[] {
  const scenario = scenarios[index];
  if (scenario === undefined) return [];
  const mine = rows.filter((row) => row.scenario.id === scenario.id);
  if (mine.length === 0) return [];
  const line = (row: EfficacyRow, variant: 'stock' | 'hyphae') => {
    const run = row[variant];
    return [
      variant === 'stock' ? row.framework.label : '',
      variant,
      String(run.toolExecutions),
      String(run.modelCalls),
      run.tokens.toLocaleString('en-US'),
      String(run.effects),
      String(run.rejected),
      run.ended,
      run.guards,
    ];
  };
  return [
    `## ${index + 1}. ${scenario.title}`,
    '',
    `${scenario.story} Required of hyphae: ${scenario.expected}.`,
    '',
    ...markdownTable(
      [
        { title: 'framework' },
        { title: 'run' },
        ...['tool executions', 'model calls', 'tokens', 'provider effects', 'provider 400s'].map(right),
        { title: 'how the run ended' },
        { title: 'what hyphae did' },
      ],
      mine.flatMap((row) => [line(row, 'stock'), line(row, 'hyphae')]),
    ),
    '',
  ];
}

function summary(rows: readonly EfficacyRow[]): string[] {
  return markdownTable(
    [{ title: 'scenario' }, { title: 'required of hyphae' }, { title: 'met' }],
    scenarios.flatMap((scenario, index) => {
      const mine = rows.filter((row) => row.scenario.id === scenario.id);
      if (mine.length === 0) return [];
      const missed = mine.filter((row) => row.missed !== null);
      const met = `${mine.length - missed.length} of ${mine.length}`;
      const notes = missed.map((row) => `${row.framework.label}: ${row.missed}`).join('; ');
      return [[`${index + 1}. ${scenario.title}`, scenario.expected, notes === '' ? met : `${met} (${notes})`]];
    }),
  );
}

/** The Markdown report. */
export function markdownOf(rows: readonly EfficacyRow[], command: string, date: Date): string {
  const setup = markdownTable(
    [
      { title: 'framework' },
      { title: 'package' },
      { title: 'limit (both runs)' },
      { title: 'stock run' },
      { title: 'with hyphae' },
    ],
    frameworks.map((f) => [f.label, `${f.pkg} ${versionOf(f.pkg)}`, f.limit, f.stock, f.guarded]),
  );
  return [
    '# Guard-efficacy benchmark',
    '',
    `- Command: \`${command}\``,
    `- Date: ${date.toISOString()}`,
    `- Machine: ${machine()}; load average ${loadavg()
      .map((n) => n.toFixed(1))
      .join(', ')} (the counts do not depend on it)`,
    '',
    'Each scenario runs with each framework twice: the stock framework, then the same with hyphae. The model is',
    'scripted and does not read what the tools answer, so both runs get the same script and any difference is the',
    "guards'. Both runs keep the framework's own default limits (the table below says which). The guarded runs all use",
    'one configuration, `createGuards` of `examples/guards.ts`, the very text the adapter docs show: a memory ledger;',
    'the permission fuse (granted `read`, `notify`, `pay`; `refund` needs `refund`); the loop fuse (repeat threshold 3,',
    `cycles up to period 4, \`poll_status\` allowed 20 repeats); a budget of ${MAX_TOKENS.toLocaleString('en-US')} tokens; payments one per intent.`,
    '',
    'Counted while the frameworks run, nothing is filled in by hand: **tool executions** are tool bodies that ran;',
    '**model calls** are requests that reached the scripted model (one the provider refused counts, one the guards',
    'refused was never sent); **tokens** add up the scripted usage of the answered calls; **provider effects** are',
    `emails, charges and refunds at the fake provider (its payment takes ${PAYMENT_MS} ms); **provider 400s** are prompts the`,
    'provider refused as malformed. In `efficacy.json` each count of the hyphae run is a figure whose baseline is the',
    'same count of the stock run.',
    '',
    ...setup,
    '',
    ...summary(rows),
    '',
    ...scenarios.flatMap((_, index) => scenarioSection(rows, index)),
  ].join('\n');
}

/** Write `bench/results/efficacy.json` and `.md`. */
export async function writeReport(rows: readonly EfficacyRow[], command: string): Promise<void> {
  const dir = new URL('../results/', import.meta.url);
  await writeFile(new URL('efficacy.json', dir), `${JSON.stringify(figuresOf(rows), null, 2)}\n`);
  await writeFile(new URL('efficacy.md', dir), markdownOf(rows, command, new Date()));
}
