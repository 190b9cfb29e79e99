/**
 * Bundle the library as it was at a git revision (default: the commit before `onCallEvent`) and as
 * it is in the work tree, each on its own, for `bench/otel/run.ts --before … --now …`: the same
 * guarded call with telemetry off on both, in the same run. Each copy runs only with telemetry off,
 * so neither has call sites that other modes made polymorphic.
 *
 *   node bench/otel/build-before.mjs [REVISION]
 *   # writes .scratch/otel-before/index.bundle.mjs and .scratch/otel-now/index.bundle.mjs
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const revision = process.argv[2] ?? '82929f1';
const dir = '.scratch/otel-before';
rmSync(dir, { recursive: true, force: true });
mkdirSync(dir, { recursive: true });
execFileSync('sh', ['-c', `git archive ${revision} src | tar -x -C ${dir}`], { stdio: 'inherit' });
const bundle = (entry, outfile) =>
  build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    packages: 'external',
    logLevel: 'error',
  });
await bundle(`${dir}/src/index.ts`, `${dir}/index.bundle.mjs`);
mkdirSync('.scratch/otel-now', { recursive: true });
await bundle('src/index.ts', '.scratch/otel-now/index.bundle.mjs');
process.stdout.write(
  `${dir}/index.bundle.mjs (hyphae at ${revision}), .scratch/otel-now/index.bundle.mjs (work tree)\n`,
);
