// What a consumer sees: the tarball's files, the install, the first `hyphae demo`.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { leftovers, npmInstall, run } from './project.mjs';

const STACK_LINE = /^\s+at .+(\(|:\d+)/m;

/** Every source map in the tarball points at sources that are in the tarball too. */
export function checkSourceMaps(repo, files) {
  const shipped = new Set(files.map((file) => normalize(file)));
  const problems = [];
  for (const file of files.filter((f) => f.endsWith('.map'))) {
    const map = JSON.parse(readFileSync(join(repo, file), 'utf8'));
    for (const source of map.sources ?? []) {
      const target = normalize(join(dirname(file), map.sourceRoot ?? '', source));
      if (!shipped.has(target)) problems.push(`${file} points at ${target}, which is not shipped`);
    }
  }
  return problems.length <= 3 ? problems : [...problems.slice(0, 3), `… and ${problems.length - 3} more`];
}

/** `npm install <tarball>` alone: it succeeds and warns about no engine. */
export function checkInstall(project, tarball) {
  const installed = npmInstall(project, [tarball]);
  const problems = [];
  if (installed.status !== 0) problems.push(`npm install failed (${installed.status}):\n${installed.stderr}`);
  const engine = installed.stderr.split('\n').filter((line) => line.includes('EBADENGINE'));
  if (engine.length > 0)
    problems.push(`npm install printed ${engine.length} EBADENGINE warnings:\n${engine.join('\n')}`);
  return { problems, ms: installed.ms };
}

/** Run `npx hyphae …` in the project, with the project's own temp folder. */
export function hyphae(project, args) {
  return run('npx', ['--no-install', 'hyphae', ...args], { cwd: project.dir, env: { TMPDIR: project.tmp } });
}

/** No temp folder of the demo is left in the project's temp folder. */
function leftFolders(project) {
  return leftovers(project).filter((name) => name.startsWith('hyphae-demo-'));
}

/**
 * A refusal: a non-zero exit, no stack trace, the fix said on one line of standard error, nothing
 * left behind.
 */
export function checkRefusal(label, result, project, fix) {
  const problems = [];
  const output = `${result.stdout}\n${result.stderr}`;
  if (result.status === 0) problems.push(`${label}: exit code 0, expected a refusal`);
  if (STACK_LINE.test(output)) problems.push(`${label}: printed a stack trace:\n${output}`);
  const lines = result.stderr.split('\n').filter((line) => line.trim() !== '');
  const saying = lines.filter((line) => line.includes(fix));
  if (saying.length !== 1) problems.push(`${label}: expected one line naming \`${fix}\` on stderr, got:\n${output}`);
  const left = leftFolders(project);
  if (left.length > 0) problems.push(`${label}: left ${left.join(', ')} behind`);
  return problems;
}

/** The demo passes every step and leaves nothing behind. */
export function checkDemoPasses(label, result, project) {
  const problems = [];
  if (result.status !== 0 || !/PASS \d+\/\d+ steps/.test(result.stdout)) {
    problems.push(`${label}: expected every step to pass (exit ${result.status}):\n${result.stdout}\n${result.stderr}`);
  }
  const left = leftFolders(project);
  if (left.length > 0) problems.push(`${label}: left ${left.join(', ')} behind`);
  return problems;
}

/** The package's `bin` is linked where `npx` finds it. */
export function binLinked(project) {
  return existsSync(join(project.dir, 'node_modules', '.bin', 'hyphae'));
}
