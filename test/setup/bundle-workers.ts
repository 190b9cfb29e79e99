/**
 * Vitest global setup: bundle the fixtures that tests spawn as child processes, so a child starts
 * as `node <bundle>.mjs` instead of `node --import tsx <fixture>.ts`, where tsx compiles the fixture
 * and everything it imports on every start (a ledger worker's whole run: ~0.8 s with tsx, ~0.2 s
 * bundled, on a busy two-core machine).
 *
 * Each fixture becomes one ESM file (platform node, target node20) under
 * `node_modules/.cache/hyphae-test-workers/<pid>-<tag>/`: inside the repository, because packages
 * stay external (`better-sqlite3`, `pg`, `redis` load from `node_modules` as in the tests), and per
 * run, because other runs of the suite may bundle different sources at the same time. The directory
 * goes to the tests in `HYPHAE_TEST_WORKER_BUNDLES` (inherited by the test processes);
 * `workerCommand()` in `test/helpers/worker-command.ts` uses a bundle when it exists and falls back
 * to tsx otherwise. A fixture that fails to bundle (or a cache that cannot be written) is reported
 * and falls back to tsx. Bundles are rebuilt when watch mode reruns the tests, so an edited fixture
 * is never run stale.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { bundleFileOf, fixtureSourceOf, WORKER_BUNDLES_ENV, WORKER_FIXTURES } from '../helpers/worker-command.js';

const CACHE = fileURLToPath(new URL('../../node_modules/.cache/hyphae-test-workers/', import.meta.url));
/** A run directory this old whose process is gone was abandoned (younger: maybe a run in another pid namespace). */
const ABANDONED_AFTER_MS = 6 * 60 * 60 * 1000;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Remove the bundle directories of earlier runs that ended without their teardown (never a live run's). */
function removeAbandoned(): void {
  let entries: string[];
  try {
    entries = readdirSync(CACHE);
  } catch {
    return;
  }
  for (const entry of entries) {
    const dir = join(CACHE, entry);
    const pid = Number(entry.split('-')[0]);
    if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid || isRunning(pid)) continue;
    try {
      if (Date.now() - statSync(dir).mtimeMs > ABANDONED_AFTER_MS)
        rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
    } catch {
      // Removed by another run meanwhile.
    }
  }
}

/** Bundle every fixture into `dir`; a fixture that fails is removed from `dir` and reported. */
async function bundleAll(dir: string): Promise<void> {
  const results = await Promise.allSettled(
    WORKER_FIXTURES.map((fixture) =>
      build({
        entryPoints: [fixtureSourceOf(fixture)],
        outfile: bundleFileOf(dir, fixture),
        bundle: true,
        platform: 'node',
        format: 'esm',
        target: 'node20',
        packages: 'external',
        sourcemap: true,
        logLevel: 'silent',
      }),
    ),
  );
  results.forEach((result, index) => {
    if (result.status === 'fulfilled') return;
    const fixture = WORKER_FIXTURES[index] ?? '';
    rmSync(bundleFileOf(dir, fixture), { force: true });
    const reason = result.reason instanceof Error ? result.reason.message : String(result.reason);
    process.stderr.write(`bundle-workers: \`${fixture}\` falls back to tsx: ${reason}\n`);
  });
}

export default async function setup(project: TestProject): Promise<() => void> {
  const dir = join(CACHE, `${process.pid}-${randomUUID().slice(0, 8)}`);
  try {
    removeAbandoned();
    mkdirSync(dir, { recursive: true });
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    process.stderr.write(`bundle-workers: no bundles, every worker starts with tsx: ${reason}\n`);
    return () => {};
  }
  await bundleAll(dir);
  process.env[WORKER_BUNDLES_ENV] = dir;
  project.onTestsRerun(() => bundleAll(dir));
  return () => {
    rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  };
}
