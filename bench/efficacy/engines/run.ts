/**
 * The durable-engine rows of the efficacy bench: every engine of index.ts with every case it runs,
 * stock then guarded, one run at a time (each run starts the engine's app in child processes).
 *
 *   node --import tsx bench/efficacy/engines/run.ts                   # a few minutes; needs PostgreSQL
 *   node --import tsx bench/efficacy/engines/run.ts --engine workflow  # one engine
 *
 * Writes bench/results/engines.json and bench/results/engines.md. A row whose guarded run missed the
 * requirement is printed and reported as NOT MET; it does not fail the run.
 */
import { commandLine, load } from '../../lib/area-report.js';
import { engines, enginesOnThisNode } from './index.js';
import { writeEnginesReport } from './report.js';
import { type EngineRow, runEngineRow } from './rows.js';

const started = performance.now();
const loadAtStart = load();
const only = process.argv.indexOf('--engine');
const chosen = only === -1 ? engines : engines.filter((engine) => engine.id === process.argv[only + 1]);
if (chosen.length === 0)
  throw new Error(`No engine \`${process.argv[only + 1]}\` (${engines.map((e) => e.id).join(', ')})`);
const { runnable, skipped } = enginesOnThisNode(chosen);
for (const { engine, reason } of skipped) console.log(`${engine.id}: skipped, ${reason}`);

const rows: EngineRow[] = [];
for (const engine of runnable) {
  try {
    for (const caseId of engine.cases) {
      const row = await runEngineRow(engine, caseId);
      rows.push(row);
      console.log(
        [
          engine.id.padEnd(9),
          caseId.padEnd(25),
          `charges ${row.stock.charges} → ${row.guarded.charges}`.padEnd(14),
          `guarded ${row.guarded.outcome}`.padEnd(35),
          row.missed === null ? 'met' : `NOT MET: ${row.missed}`,
        ].join(' '),
      );
    }
  } finally {
    await engine.close?.();
  }
}
await writeEnginesReport(rows, runnable, skipped, commandLine(), loadAtStart);
console.log(
  `wrote bench/results/engines.json and bench/results/engines.md in ${Math.round((performance.now() - started) / 1000)} s`,
);
