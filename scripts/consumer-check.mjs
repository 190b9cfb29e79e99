#!/usr/bin/env node
// The consumer check: what someone who runs `npm install hyphae` gets, tried on the packed tarball
// in an empty project (run after `npm run build`; the tarball is the current dist/).
//
//   1. the tarball ships no source map pointing at a file it does not ship;
//   2. `npm install <tarball>` alone succeeds without EBADENGINE warnings;
//   3. `npx hyphae demo` passes every step where Node has a working `node:sqlite`; elsewhere (no
//      driver installed) it refuses on one line naming `npm install better-sqlite3`, exits non-zero,
//      prints no stack trace and leaves no `hyphae-demo-*` folder; `demo --redis` / `--postgres`
//      without their client packages refuse the same way;
//   4. every ```ts block of README.md and docs/ type-checks with `tsc --strict` on TypeScript's
//      defaults against the installed package, and the ```ts runnable blocks run (see
//      scripts/consumer/snippets.mjs for the markers and the hidden prelude), and every ```yaml block
//      that is a whole `hyphae.yaml` is a valid config.
//
// Usage: node scripts/consumer-check.mjs [--keep]
import { rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binLinked, checkDemoPasses, checkInstall, checkRefusal, checkSourceMaps, hyphae } from './consumer/checks.mjs';
import { checkConfigs, checkDeclarations, checkDocs } from './consumer/docs-check.mjs';
import { createProject, hasNodeSqlite, pack } from './consumer/project.mjs';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const keep = process.argv.includes('--keep');
const project = createProject();
const failures = [];

function report(name, problems) {
  console.log(`${problems.length === 0 ? 'ok  ' : 'FAIL'}  ${name}`);
  for (const problem of problems) console.log(`      ${problem.replaceAll('\n', '\n      ')}`);
  failures.push(...problems);
}

try {
  const { tarball, files } = pack(repo, project.base);
  report(`source maps (${files.filter((f) => f.endsWith('.map')).length} shipped)`, checkSourceMaps(repo, files));

  const install = checkInstall(project, tarball);
  report(`npm install <tarball> alone (${Math.round(install.ms)} ms)`, install.problems);
  if (!binLinked(project)) report('the `hyphae` bin is linked', ['node_modules/.bin/hyphae is missing']);

  const nodeSqlite = hasNodeSqlite();
  const demo = hyphae(project, ['demo']);
  if (nodeSqlite) report('`npx hyphae demo` on node:sqlite passes', checkDemoPasses('demo', demo, project));
  else
    report(
      '`npx hyphae demo` without a SQLite driver refuses',
      checkRefusal('demo', demo, project, 'npm install better-sqlite3'),
    );
  const redis = hyphae(project, ['demo', '--redis', 'redis://127.0.0.1:6379']);
  report(
    '`npx hyphae demo --redis` without `redis` refuses',
    checkRefusal('demo --redis', redis, project, 'npm install redis'),
  );
  const postgres = hyphae(project, ['demo', '--postgres', 'postgres://postgres@127.0.0.1:5432/test']);
  report(
    '`npx hyphae demo --postgres` without `pg` refuses',
    checkRefusal('demo --postgres', postgres, project, 'npm install pg'),
  );

  report('published declarations type-check on TypeScript defaults', checkDeclarations(project, repo));
  // Runnable blocks use the embedded store: without node:sqlite they need the driver a reader installs.
  const docs = checkDocs(project, repo, { link: nodeSqlite ? [] : ['better-sqlite3'] });
  report(
    `documentation: ${docs.blocks} TypeScript blocks type-check, ${docs.ran.length} runnable blocks run`,
    docs.problems,
  );
  const configs = checkConfigs(project, repo);
  report(`documentation: ${configs.configs} whole hyphae.yaml files are valid`, configs.problems);
} finally {
  if (keep) console.log(`kept ${project.base}`);
  else rmSync(project.base, { recursive: true, force: true });
}

console.log(failures.length === 0 ? 'consumer check passed' : `consumer check failed: ${failures.length} problems`);
process.exitCode = failures.length === 0 ? 0 : 1;
