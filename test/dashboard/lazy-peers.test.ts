import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
// A resolve hook that fails any import of the dashboard's or telemetry's peer packages.
const BLOCK = `data:text/javascript,${encodeURIComponent(`
import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(
  'export async function resolve(s, c, n) { if (/^(hono|@hono\\\\/|@opentelemetry\\\\/)/.test(s)) throw Object.assign(new Error("peer loaded: " + s), { code: "ERR_MODULE_NOT_FOUND" }); return n(s, c); }'
));`)}`;

function run(args: readonly string[]) {
  return spawnSync(process.execPath, ['--import', BLOCK, '--import', TSX, ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
}

function importAll(files: readonly string[]) {
  const code = `${files.map((file) => `await import(${JSON.stringify(`${ROOT}${file}`)});`).join('\n')}\nconsole.log('imported');`;
  return run(['--input-type=module', '-e', code]);
}

describe('peer packages load only where they are used', () => {
  it('the root entry, hyphae/otel and the CLI import neither hono nor OpenTelemetry', () => {
    const result = importAll(['src/index.ts', 'src/otel/index.ts', 'src/cli/commands/dashboard.ts']);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('imported');
  });

  it('the dashboard server does load hono (the check above can fail)', () => {
    const result = importAll(['src/dashboard/start-dashboard.ts']);
    expect(result.stderr).toContain('peer loaded: @hono/node-server');
  });

  it('without hono, `hyphae dashboard` says which packages to install and exits 1', () => {
    const result = run([`${ROOT}src/cli/main.ts`, 'dashboard', '--port', '0']);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('npm install hono @hono/node-server');
  });
});
