/**
 * Run a bench script as plain JavaScript, the way the library ships: esbuild bundles the script and
 * the sources it imports (packages stay external) next to the script, then Node runs the bundle.
 * A TypeScript loader in the measured process would add its own cost to the library's figures.
 *
 *   node bench/run-bundled.mjs bench/ledger/run.ts [--quick]
 *
 * The bundle sits beside its entry (`<name>.bundle.mjs`, ignored by git), so paths the script
 * builds from `import.meta.url` resolve as they do from the source.
 */
import { spawn } from 'node:child_process';
import { build } from 'esbuild';

const [entry, ...args] = process.argv.slice(2);
if (entry === undefined || !entry.endsWith('.ts')) {
  console.error('Usage: node bench/run-bundled.mjs <bench script>.ts [arguments]');
  process.exit(2);
}
const outfile = entry.replace(/\.ts$/, '.bundle.mjs');
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
const command = ['node bench/run-bundled.mjs', entry, ...args].join(' ');
const child = spawn(process.execPath, [outfile, ...args], {
  stdio: 'inherit',
  env: { ...process.env, HYPHAE_BENCH_COMMAND: command },
});
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal === null ? 1 : 128);
});
