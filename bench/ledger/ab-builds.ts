/**
 * Two builds of the ledger in one process, for the A/B bench: the sources of a git revision and
 * the sources of this checkout, each bundled by esbuild into one module of its own (packages stay
 * external), so both sides are built the same way and every difference is the code.
 *
 * The revision's `src/` is extracted with `git archive` under `bench/.ab/<commit>/` (ignored by git),
 * inside the repository, so the bundles resolve `redis` and the other packages from its node_modules.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import type { createLedger as CreateLedger, createMemoryStorage as CreateMemoryStorage } from '../../src/index.js';
import type { createRedisStorage as CreateRedisStorage } from '../../src/storage/redis.js';

/** What the A/B bench needs of one build. */
export interface LedgerBuild {
  /** `base` or `head`, and the commit (or `working tree`) it was built from. */
  readonly label: string;
  readonly source: string;
  readonly createLedger: typeof CreateLedger;
  readonly createMemoryStorage: typeof CreateMemoryStorage;
  readonly createRedisStorage: typeof CreateRedisStorage;
}

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const WORK = fileURLToPath(new URL('../.ab/', import.meta.url));

function git(...args: string[]): string {
  return execFileSync('git', args, { cwd: REPO, encoding: 'utf8' }).trim();
}

/** Bundle the entries of the sources under `srcDir` into `outfile` and import it. */
async function bundle(srcDir: string, outfile: string): Promise<Omit<LedgerBuild, 'label' | 'source'>> {
  const entry = `${outfile}.entry.ts`;
  await writeFile(
    entry,
    [
      `export { createLedger, createMemoryStorage } from ${JSON.stringify(`${srcDir}/index.ts`)};`,
      `export { createRedisStorage } from ${JSON.stringify(`${srcDir}/storage/redis.ts`)};`,
      '',
    ].join('\n'),
  );
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
  return (await import(pathToFileURL(outfile).href)) as Omit<LedgerBuild, 'label' | 'source'>;
}

/** The build of `revision` (a commit, tag or branch). */
export async function revisionBuild(label: string, revision: string): Promise<LedgerBuild> {
  const commit = git('rev-parse', '--verify', `${revision}^{commit}`);
  const dir = `${WORK}${commit}`;
  if (!existsSync(`${dir}/src/index.ts`)) {
    await mkdir(dir, { recursive: true });
    execFileSync('sh', ['-c', `git archive ${commit} src | tar -x -C "${dir}"`], { cwd: REPO });
  }
  const loaded = await bundle(`${dir}/src`, `${dir}/ledger.mjs`);
  return { label, source: `${git('log', '-1', '--format=%h %s', commit)}`, ...loaded };
}

/** The build of this checkout's sources as they are on disk. */
export async function workingTreeBuild(label: string): Promise<LedgerBuild> {
  await mkdir(WORK, { recursive: true });
  const dirty = git('status', '--porcelain', '--', 'src') !== '';
  const head = git('log', '-1', '--format=%h %s');
  const loaded = await bundle(`${REPO}src`, `${WORK}working-tree.mjs`);
  return { label, source: dirty ? `${head} + uncommitted changes` : head, ...loaded };
}
