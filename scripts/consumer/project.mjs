// A consumer's project: the packed tarball installed into an empty folder, and commands run there.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Run a command; never throws for a non-zero exit. */
export function run(command, args, options = {}) {
  const started = performance.now();
  const result = spawnSync(command, args, {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    ...options,
    env: { ...process.env, NO_COLOR: '1', ...options.env },
  });
  if (result.error !== undefined) throw result.error;
  return {
    status: result.status,
    signal: result.signal,
    stdout: result.stdout,
    stderr: result.stderr,
    ms: performance.now() - started,
  };
}

/** `npm pack` of the repository as it is built now (the `prepare` build is not re-run). */
export function pack(repo, destination) {
  const packed = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', destination], { cwd: repo });
  if (packed.status !== 0) throw new Error(`npm pack failed:\n${packed.stderr}`);
  const [info] = JSON.parse(packed.stdout);
  return { tarball: join(destination, info.filename), files: info.files.map((file) => file.path) };
}

/** An empty ESM project in a new temp folder, with its own temp folder for what it runs. */
export function createProject(root = tmpdir()) {
  const base = mkdtempSync(join(root, 'hyphae-consumer-'));
  const dir = join(base, 'app');
  const tmp = join(base, 'tmp');
  mkdirSync(dir);
  mkdirSync(tmp);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'hyphae-consumer', private: true, type: 'module' }, null, 2)}\n`,
  );
  return { base, dir, tmp };
}

/** `npm install` in the project (the cache first; the registry for what it lacks). */
export function npmInstall(project, specs) {
  return run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', ...specs], {
    cwd: project.dir,
    env: { TMPDIR: project.tmp },
  });
}

/** Link packages of the repository's node_modules into the project (what the snippets import). */
export function linkPackages(project, repo, names) {
  for (const name of names) {
    const target = join(project.dir, 'node_modules', name);
    if (existsSync(target)) continue;
    mkdirSync(dirname(target), { recursive: true });
    symlinkSync(join(repo, 'node_modules', name), target, 'dir');
  }
}

/** The entries of the project's temp folder (what a command left behind). */
export function leftovers(project) {
  return readdirSync(project.tmp);
}

/** Whether this Node has a working `node:sqlite` (the embedded default needs no native build then). */
export function hasNodeSqlite() {
  const probe = run(process.execPath, [
    '-e',
    "const { DatabaseSync } = require('node:sqlite'); new DatabaseSync(':memory:').exec('select 1');",
  ]);
  return probe.status === 0;
}
