/**
 * Gather every area's figures into `bench/RESULTS.md` and `bench/results.json`.
 *
 * Each benchmark (`bench/<area>/run.ts`) writes `bench/results/<area>.md` and `.json`; this script
 * joins them, so one area can be re-measured without re-running the others.
 *
 *   node --import tsx bench/aggregate.ts
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { Figure } from './lib/area-report.js';

const dir = new URL('./results/', import.meta.url);
const AREA_ORDER = [
  'ledger',
  'powertools',
  'ab',
  'small-claim',
  'redis-scripts',
  'first-call-parts',
  'dbos',
  'durable',
  'durable-workflow',
  'throughput',
  'cluster',
  'cluster-scaling',
  'fuses',
  'boundary',
  'context',
  'json-patch',
  'adapters',
  'efficacy',
  'engines',
  'history',
];
const areas = readdirSync(dir)
  .filter((file) => file.endsWith('.json'))
  .map((file) => file.slice(0, -'.json'.length))
  .sort((a, b) => {
    const rank = (area: string) => (AREA_ORDER.includes(area) ? AREA_ORDER.indexOf(area) : AREA_ORDER.length);
    return rank(a) - rank(b) || a.localeCompare(b);
  });

const figures: (Figure & { readonly area: string })[] = [];
const sections: string[] = [];
for (const area of areas) {
  const list = JSON.parse(readFileSync(new URL(`${area}.json`, dir), 'utf8')) as Figure[];
  for (const figure of list) figures.push({ area, ...figure });
  const markdown = readFileSync(new URL(`${area}.md`, dir), 'utf8');
  // Each area's own page starts with a level-1 heading; here it becomes a section.
  sections.push(
    markdown
      .replace(/^# /m, '## ')
      .replace(/^(#{2,5}) /gm, (m, hashes: string, offset: number) => (offset === 0 ? m : `#${hashes} `)),
  );
}

const page = `# Benchmark results

Every figure is a ratio against a baseline measured in the same run, on the same machine. Each
section names the command that produced it; \`node --import tsx bench/aggregate.ts\` rebuilds this page
and \`bench/results.json\` from \`bench/results/\`.

${sections.join('\n')}`;
writeFileSync(new URL('./RESULTS.md', import.meta.url), page);
writeFileSync(new URL('./results.json', import.meta.url), `${JSON.stringify(figures, null, 2)}\n`);
process.stdout.write(
  `wrote bench/RESULTS.md and bench/results.json: ${areas.length} areas, ${figures.length} figures\n`,
);
