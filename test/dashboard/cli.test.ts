import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const tempDir = useTempDir();
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});

/** Start `hyphae dashboard` and wait for the line that names its address. */
function startCli(cwd: string, args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'dashboard', ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', ...env },
  });
  children.push(child);
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = new Promise<string>((resolve, reject) => {
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const found = /Dashboard on (http:\/\/\S+)/.exec(stdout)?.[1];
      if (found !== undefined) resolve(found);
    });
    void exited.then((code) => reject(new Error(`exited ${code}: ${stderr}`)));
  });
  return { child, url, exited };
}

function project(): string {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'hyphae.yaml'),
    yaml(
      'transition: { agent_id: agent, policy_version: 1 }',
      'action_ledger: { storage: sqlite, path: ledger.db }',
      'receipts: { algorithm: hmac-sha256, key_env: RECEIPT_KEY, key_id: k1, path: receipts.jsonl }',
      'tools:',
      '  send_payment: { side_effect_class: payment }',
    ),
  );
  return dir;
}

const KEY = { RECEIPT_KEY: 'k'.repeat(48) };

describe('hyphae dashboard', () => {
  it('refuses to listen beyond loopback without a token, and refuses a short token', () => {
    const dir = project();
    const open = hyphae(dir, ['dashboard', '--host', '0.0.0.0'], KEY);
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('Listening on `0.0.0.0` needs a token');
    const short = hyphae(dir, ['dashboard', '--token', 'short'], KEY);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain('at least 24 characters');
    expect(hyphae(dir, ['help']).stdout).toMatch(/dashboard\s+serve the operator dashboard/);
  });

  it('serves the config ledger on loopback, releases through it with a receipt, and stops on SIGTERM', async () => {
    const dir = project();
    const unknown = makeTestRecord({ outcome: 'UNKNOWN', boundary: 'maybe_crossed', owner: null, leaseUntil: null });
    const storage = createSqliteStorage({ path: join(dir, 'ledger.db') });
    await storage.create(unknown);
    await storage.close();

    const cli = startCli(dir, ['--port', '0'], KEY);
    const url = await cli.url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const first = await fetch(`${url}/t/${unknown.key}`);
    expect(first.status).toBe(200);
    const cookie = (first.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(await first.text())?.[1] as string;
    const form = { _csrf: csrf, action: 'release_not_executed', by: 'ada', reason: 'no charge', confirm: 'yes' };
    const post = (headers: Record<string, string>) =>
      fetch(`${url}/t/${unknown.key}/act`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form),
      });
    // A form the session posts without naming its origin (not how a browser posts) is refused.
    const unnamed = await post({});
    expect(unnamed.status).toBe(403);
    expect(await unnamed.text()).toContain('no `Origin` header');
    const done = await post({ origin: url });
    expect(done.status).toBe(303);
    const receipts = readFileSync(join(dir, 'receipts.jsonl'), 'utf8').trim().split('\n');
    const last = JSON.parse(receipts.at(-1) as string) as { outcome: string; operator: unknown };
    expect(last).toMatchObject({ outcome: 'NOT_EXECUTED', operator: { by: 'ada', reason: 'no charge' } });
    const chain = await (await fetch(`${url}/receipts`, { headers: { cookie } })).text();
    expect(chain).toContain(`Chain verified: ${receipts.length} receipts`);

    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });

  it('with a token, refuses a request that has none', async () => {
    const dir = project();
    const token = 't'.repeat(32);
    const cli = startCli(dir, ['--port', '0', '--read-only'], { ...KEY, HYPHAE_DASHBOARD_TOKEN: token });
    const url = await cli.url;
    expect((await fetch(`${url}/`, { redirect: 'manual' })).status).toBe(303);
    expect((await fetch(`${url}/`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(0);
  });
});
