/**
 * How a test starts a TypeScript fixture of `test/fixtures/` as a child process.
 *
 * `test/setup/bundle-workers.ts` (vitest `globalSetup`) bundles the spawned fixtures with esbuild
 * before the run and puts the directory in {@link WORKER_BUNDLES_ENV}; a child then starts as
 * `node <bundle>.mjs`, without tsx compiling the fixture and its imports on every start. Without
 * the bundle (a run without the global setup, a fixture it does not list) the child falls back to
 * `node --import tsx test/fixtures/<name>.ts`.
 *
 * This module is itself bundled into the workers (through `test/helpers/backends.ts`): it must not
 * import vitest, and it resolves paths only when called.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The environment variable holding the directory of the bundled fixtures. */
export const WORKER_BUNDLES_ENV = 'HYPHAE_TEST_WORKER_BUNDLES';

/** The fixtures children are spawned from, by file name without `.ts`. */
export const WORKER_FIXTURES = ['ledger-worker', 'race-worker', 'sqlite-create-contender'] as const;
export type WorkerFixture = (typeof WORKER_FIXTURES)[number];

/** The bundle file of a fixture inside a bundle directory. */
export const bundleFileOf = (dir: string, fixture: string): string => join(dir, `${fixture}.mjs`);

/** The TypeScript source of a fixture. */
export const fixtureSourceOf = (fixture: string): string =>
  fileURLToPath(new URL(`../fixtures/${fixture}.ts`, import.meta.url));

/** The command that starts `fixture`: its bundle when the global setup built one, else tsx. */
export function workerCommand(
  fixture: WorkerFixture,
  env: NodeJS.ProcessEnv = process.env,
): { command: string; args: string[] } {
  const dir = env[WORKER_BUNDLES_ENV];
  if (dir !== undefined && dir !== '') {
    const bundle = bundleFileOf(dir, fixture);
    if (existsSync(bundle)) return { command: process.execPath, args: [bundle] };
  }
  return { command: process.execPath, args: ['--import', 'tsx', fixtureSourceOf(fixture)] };
}
