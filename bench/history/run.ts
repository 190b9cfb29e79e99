/**
 * Exactly-once, proven over histories: the interleaving explorer's schedules (correct store and a
 * store with a seeded bug), and the history checker's totals over the race, crash and chaos suites
 * on every store they run on.
 *
 *   node --import tsx bench/history/run.ts            # explorer, then the suites (~5 min)
 *   node --import tsx bench/history/run.ts --quick    # explorer only, smaller bounds
 *
 * The suites run through vitest with `HYPHAE_HISTORY_DIR` set; each writes its totals there
 * (test/helpers/history-report.ts). Writes bench/results/history.json and bench/results/history.md.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type ExploreOptions,
  exploreInterleavings,
  formatSchedule,
  withoutVersionCheck,
} from '../../src/testing/index.js';
import { commandLine, type Figure, figure, headerLines, load, writeArea } from '../lib/area-report.js';
import { type Column, markdownTable } from '../lib/markdown-table.js';

const columns = (titles: readonly string[], right: number): Column[] =>
  titles.map((title, i) => ({ title, align: i >= right ? 'right' : 'left' }));

const quick = process.argv.includes('--quick');
const loadAtStart = load();
const date = new Date();
const SUITES = ['test/ledger/race-rounds.int.test.ts', 'test/ledger/crash.test.ts', 'test/ledger/chaos.int.test.ts'];

interface ExplorerRow {
  readonly label: string;
  readonly options: ExploreOptions;
}

const rows: ExplorerRow[] = [
  { label: '2 workers', options: { workers: 2, depth: quick ? 6 : 8, randomSchedules: quick ? 200 : 2_000, seed: 1 } },
  { label: '3 workers', options: { workers: 3, depth: quick ? 5 : 7, randomSchedules: quick ? 200 : 2_000, seed: 1 } },
];

const figures: Figure[] = [];
const explorerTable: string[][] = [];
let failingExample = '';
for (const row of rows) {
  for (const [store, storage] of [
    ['memory', undefined],
    ['memory, CAS version check removed', withoutVersionCheck],
  ] as const) {
    const started = performance.now();
    const report = await exploreInterleavings({ ...row.options, ...(storage === undefined ? {} : { storage }) });
    const ms = performance.now() - started;
    const slug = `${row.label.replace(' ', '-')}${storage === undefined ? '' : '-seeded-bug'}`;
    figures.push(figure(`explorer ${slug} schedules`, 'count', report.schedules, null, 0));
    figures.push(figure(`explorer ${slug} failing schedules`, 'count', report.failures, null, 0));
    explorerTable.push([
      row.label,
      store,
      `${row.options.depth} (${report.exhaustive ? 'all explored' : 'capped'}) + ${report.randomSchedules} random`,
      String(report.schedules),
      String(report.operations),
      String(report.effects),
      String(report.failures),
      report.shortestFailing === null ? '—' : String(report.shortestFailing.trace.length),
      (ms / 1000).toFixed(1),
    ]);
    if (storage !== undefined && report.shortestFailing !== null && failingExample === '')
      failingExample = formatSchedule(report.shortestFailing);
  }
}

const suiteTable: string[][] = [];
let suiteNote = 'Skipped (`--quick`).';
if (!quick) {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-history-bench-'));
  try {
    const run = spawnSync('npx', ['vitest', 'run', ...SUITES], {
      env: { ...process.env, HYPHAE_HISTORY_DIR: dir, REQUIRE_INTEGRATION: '1' },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    suiteNote =
      run.status === 0
        ? `\`npx vitest run ${SUITES.join(' ')}\` with \`REQUIRE_INTEGRATION=1\`: every test passed.`
        : `The suites FAILED (exit ${run.status}); the totals below are what they wrote.`;
    for (const file of readdirSync(dir).sort()) {
      const totals = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        suite: string;
        store: string;
        histories: number;
        operations: number;
        effects: number;
        anomalies: number;
      };
      suiteTable.push([
        totals.suite,
        totals.store,
        String(totals.histories),
        String(totals.operations),
        String(totals.effects),
        String(totals.anomalies),
      ]);
      figures.push(figure(`checker ${totals.suite} ${totals.store} histories`, 'count', totals.histories, null, 0));
      figures.push(figure(`checker ${totals.suite} ${totals.store} anomalies`, 'count', totals.anomalies, null, 0));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const markdown = [
  '# History checker and interleaving explorer',
  '',
  ...headerLines(commandLine(), loadAtStart, date),
  '',
  'Counts, not timings: no baseline applies. The target is 0 anomalies on a correct store, and at least one',
  'failing schedule found on a store with a seeded bug.',
  '',
  '## Interleaving explorer (memory store, deterministic scheduler)',
  '',
  'Every storage operation and every provider effect is a yield point; at each one the explorer may also',
  'kill a worker, expire the leases or have an operator release a dead worker’s claim (truthfully: the',
  'operator checked the provider), at most once each per schedule. A last redispatch closes every schedule.',
  'Depth is the number of branching points explored exhaustively; past it, choices are seeded random.',
  '',
  ...markdownTable(
    columns(
      [
        'workers',
        'store',
        'depth',
        'schedules',
        'calls',
        'effects',
        'failing schedules',
        'shortest failing (steps)',
        's',
      ],
      3,
    ),
    explorerTable,
  ),
  '',
  ...(failingExample === ''
    ? []
    : ['The shortest schedule found on the seeded bug:', '', '```', failingExample, '```', '']),
  '## History checker over the race, crash and chaos suites',
  '',
  suiteNote,
  'The suites run on every durable store the process can open; `node-sqlite` (Node’s built-in `node:sqlite`)',
  'needs Node 22.5 or later, so the figures below come from `.ci/node24 node --import tsx bench/history/run.ts`.',
  'The memory store is the explorer’s, above.',
  '',
  ...markdownTable(columns(['suite', 'store', 'histories', 'calls', 'effects', 'anomalies'], 2), suiteTable),
  '',
].join('\n');

await writeArea('history', figures, markdown);
