/**
 * A consumer's first run: `npm install` of the packed tarball (with the SQLite driver this Node
 * needs: none where `node:sqlite` works, `better-sqlite3` otherwise) into an empty project, then the
 * first `npx hyphae demo`. Baselines from the same run: `npm install` of the tarball alone, and
 * `npx hyphae --version` (the CLI's start). Figures of the other driver's route are kept.
 *
 *   npm run build && node --import tsx bench/consumer/run.ts
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createProject, hasNodeSqlite, npmInstall, pack, run } from '../../scripts/consumer/project.mjs';
import { commandLine, type Figure, figure, headerLines, load, writeArea } from '../lib/area-report.js';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const resultsJson = new URL('../results/consumer.json', import.meta.url);
const resultsMd = new URL('../results/consumer.md', import.meta.url);
const driver = hasNodeSqlite() ? 'node:sqlite' : 'better-sqlite3';
const BETTER_SQLITE3 = 'better-sqlite3@12';

function step(name: string, ok: boolean, output: string): void {
  if (!ok) throw new Error(`${name} failed:\n${output}`);
}

const loadAtStart = load();
const date = new Date();
const alone = createProject();
const route = createProject();
try {
  const { tarball } = pack(repo, alone.base);
  const baseline = npmInstall(alone, [tarball]);
  step('npm install <tarball>', baseline.status === 0, baseline.stderr);
  const specs = driver === 'node:sqlite' ? [tarball] : [tarball, BETTER_SQLITE3];
  const install = npmInstall(route, specs);
  step(`npm install ${specs.join(' ')}`, install.status === 0, install.stderr);
  const npx = (args: string[]) =>
    run('npx', ['--no-install', 'hyphae', ...args], { cwd: route.dir, env: { TMPDIR: route.tmp } });
  const start = npx(['--version']);
  step('hyphae --version', start.status === 0, start.stderr);
  const demo = npx(['demo']);
  step('hyphae demo', demo.status === 0 && demo.stdout.includes('PASS 5/5 steps'), `${demo.stdout}${demo.stderr}`);

  const s = (ms: number) => ms / 1000;
  const label = `consumer (${driver})`;
  const figures: Figure[] = [
    figure(
      `${label}: npm install ${driver === 'node:sqlite' ? 'hyphae' : 'hyphae better-sqlite3'} vs hyphae alone`,
      's',
      s(install.ms),
      s(baseline.ms),
    ),
    figure(`${label}: first hyphae demo vs hyphae --version`, 's', s(demo.ms), s(start.ms)),
    figure(
      `${label}: npm install + first hyphae demo vs npm install hyphae alone`,
      's',
      s(install.ms + demo.ms),
      s(baseline.ms),
    ),
  ];
  const kept = existsSync(resultsJson)
    ? (JSON.parse(readFileSync(resultsJson, 'utf8')) as Figure[]).filter((f) => !f.name.startsWith(`${label}:`))
    : [];
  const section = [
    `## ${label}`,
    '',
    ...headerLines(commandLine(), loadAtStart, date),
    `- Installed: \`npm install ${specs.map((spec) => (spec === tarball ? 'hyphae-<version>.tgz' : spec)).join(' ')}\` into an empty project, npm cache warm (\`--prefer-offline\`)`,
    '',
    '| step | seconds | baseline | baseline seconds | ratio |',
    '| --- | ---: | --- | ---: | ---: |',
    `| npm install | ${s(install.ms).toFixed(1)} | npm install hyphae alone | ${s(baseline.ms).toFixed(1)} | ${(install.ms / baseline.ms).toFixed(2)}× |`,
    `| first \`hyphae demo\` (5 steps) | ${s(demo.ms).toFixed(1)} | \`hyphae --version\` | ${s(start.ms).toFixed(2)} | ${(demo.ms / start.ms).toFixed(2)}× |`,
    `| install + first demo | ${s(install.ms + demo.ms).toFixed(1)} | npm install hyphae alone | ${s(baseline.ms).toFixed(1)} | ${((install.ms + demo.ms) / baseline.ms).toFixed(2)}× |`,
    '',
  ].join('\n');
  const previous = existsSync(resultsMd) ? readFileSync(resultsMd, 'utf8') : '';
  const others = previous
    .split(/^(?=## consumer \()/m)
    .filter((part) => part.startsWith('## consumer (') && !part.startsWith(`## ${label}`));
  const page = [
    "# A consumer's first run",
    '',
    'What someone who runs `npm install hyphae` waits for before the first `npx hyphae demo` passes, per',
    'SQLite driver: `node:sqlite` needs no native build; `better-sqlite3` is compiled (or its prebuilt',
    'binary downloaded) during the install; where the download cannot reach GitHub (as on the machine',
    'below), the install waits for it to fail and then compiles with node-gyp. Timed once per route; the',
    'machine is shared (see the load).',
    '',
    ...[...others, section].sort(),
  ].join('\n');
  await writeArea('consumer', [...kept, ...figures], page);
  process.stdout.write(`${page}\n`);
} finally {
  rmSync(alone.base, { recursive: true, force: true });
  rmSync(route.base, { recursive: true, force: true });
}
