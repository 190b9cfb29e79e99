/**
 * The durable-engine bench's outputs: `bench/results/engines.json` (figures: the guarded run's
 * charges against the stock run's) and `bench/results/engines.md`, which `bench/aggregate.ts`
 * gathers.
 */
import { readFileSync } from 'node:fs';
import { type Figure, figure, headerLines, writeArea } from '../../lib/area-report.js';
import { markdownTable } from '../../lib/markdown-table.js';
import { engineCaseOf, engineCases } from './cases.js';
import type { SkippedEngine } from './index.js';
import { type EngineRow, REQUIRED } from './rows.js';
import type { Engine } from './types.js';

/** The installed version of `pkg`. */
export function versionOf(pkg: string): string {
  const url = new URL(`../../../node_modules/${pkg}/package.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { version: string }).version;
}

/** The figures: each row's guarded charges, with the stock run's as the baseline. */
export function figuresOf(rows: readonly EngineRow[]): Figure[] {
  return rows.map((row) =>
    figure(
      `${row.engine.label}: ${engineCaseOf(row.caseId).title} — charges (hyphae vs stock)`,
      'charges',
      row.guarded.charges,
      row.stock.charges,
    ),
  );
}

const right = (title: string) => ({ title, align: 'right' as const });

/** The rows table: stock beside guarded per engine and case. */
export function rowsTable(rows: readonly EngineRow[]): string[] {
  return markdownTable(
    [
      { title: 'engine' },
      { title: 'the step' },
      right('stock charges'),
      right('guarded charges'),
      { title: 'stock outcome' },
      { title: 'guarded outcome' },
      { title: 'met' },
    ],
    rows.map((row) => [
      row.engine.label,
      engineCaseOf(row.caseId).title,
      String(row.stock.charges),
      String(row.guarded.charges),
      row.stock.outcome,
      row.guarded.outcome,
      row.missed === null ? 'met' : `NOT MET: ${row.missed}`,
    ]),
  );
}

/** The cases an engine leaves out, with the reason (shown under the table). */
const LEFT_OUT: Readonly<Record<string, string>> = {
  workflow:
    'Workflow DevKit has no `outlives its timeout` row: a step has no timeout that starts a second attempt (`maxRetries` and `RetryableError` are its retry options); a step runs until it returns, throws or its process dies, which is the kill row.',
};

/** The Markdown report. */
export function markdownOf(
  rows: readonly EngineRow[],
  ran: readonly Engine[],
  skipped: readonly SkippedEngine[],
  command: string,
  loadAtStart: number,
  date: Date,
): string {
  const setup = markdownTable(
    [{ title: 'engine' }, { title: 'package' }, { title: 'how it runs' }],
    ran.map((engine) => [engine.label, `${engine.pkg} ${versionOf(engine.pkg)}`, engine.setup]),
  );
  const notes = [
    ...ran.filter((engine) => LEFT_OUT[engine.id] !== undefined).map((engine) => `- ${LEFT_OUT[engine.id]}`),
    ...skipped.map(({ engine, reason }) => `- ${engine.label} (\`${engine.pkg}\`) did not run: ${reason}.`),
  ];
  const met = rows.filter((row) => row.missed === null).length;
  return [
    '# Durable engines: a step that fails after its charge',
    '',
    ...headerLines(command, loadAtStart, date),
    '',
    "A durable engine journals a step's result when the step returns, so a step that charged and then",
    'died, threw or timed out runs again. Each case runs twice on each engine: stock (the charge directly in',
    "the step, or in the tool's body), then through hyphae's adapter for the engine. **Charges** are what the",
    'provider recorded (a row, or a line in a file), counted after the workflow ended. Required of the guarded',
    `run: ${REQUIRED}. Met on ${met} of ${rows.length} rows.`,
    '',
    'A guarded step whose first attempt charged and then died or threw never committed its result: the ledger',
    'cannot tell whether the provider kept the charge, so the retry meets a hard block instead of charging',
    'again, the engine does not retry it, and the transition waits for an operator',
    "(`hyphae transitions list --stuck`). A first attempt that committed (the timeout's slow attempt, a tool",
    'whose turn failed after it) answers the retry from its record, and the workflow completes.',
    '',
    ...setup,
    '',
    ...engineCases.map((c) => `- **${c.title}**: ${c.story}.`),
    '',
    ...rowsTable(rows),
    ...(notes.length === 0 ? [] : ['', ...notes]),
    '',
  ].join('\n');
}

/** Write `bench/results/engines.json` and `.md`. */
export async function writeEnginesReport(
  rows: readonly EngineRow[],
  ran: readonly Engine[],
  skipped: readonly SkippedEngine[],
  command: string,
  loadAtStart: number,
): Promise<void> {
  await writeArea('engines', figuresOf(rows), markdownOf(rows, ran, skipped, command, loadAtStart, new Date()));
}
