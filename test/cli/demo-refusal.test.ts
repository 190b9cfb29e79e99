import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { describeWorker } from '../../src/cli/demo/step-shared-ledger.js';
import { dispatchTwice } from '../../src/cli/demo/steps-redispatch.js';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const HIDE = new URL('../fixtures/hide-packages.mjs', import.meta.url).href;
const STACK_LINE = /^\s+at .+(\(|:\d+)/m;

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

/** `hyphae demo …` with its own temp folder, and the packages in `hide` resolving as not installed. */
function demo(args: readonly string[], hide: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const tmp = mkdtempSync(join(tmpdir(), 'hyphae-demo-refusal-'));
  temps.push(tmp);
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--import', HIDE, MAIN, 'demo', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', TMPDIR: tmp, HYPHAE_HIDE_PACKAGES: hide.join(','), ...env },
    timeout: 60_000,
  });
  return {
    code: result.status,
    stdout: result.stdout,
    stderr: result.stderr,
    left: readdirSync(tmp).filter((name) => name.startsWith('hyphae-demo-')),
  };
}

function hasNodeSqlite(): boolean {
  const probe = spawnSync(process.execPath, ['-e', "new (require('node:sqlite').DatabaseSync)(':memory:')"]);
  return probe.status === 0;
}

describe('hyphae demo without the packages its store needs', () => {
  it.each([
    ['--redis', 'redis', 'redis://127.0.0.1:6379'],
    ['--postgres', 'pg', 'postgres://postgres@127.0.0.1:5432/test'],
  ])('%s without `%s` installed refuses on one line, runs nothing and leaves nothing', (flag, pkg, url) => {
    const { code, stdout, stderr, left } = demo([flag, url], [pkg]);

    expect(code).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([expect.stringContaining(`npm install ${pkg}`)]);
    expect(`${stdout}${stderr}`).not.toMatch(STACK_LINE);
    expect(stdout).not.toContain('PASS');
    expect(left).toEqual([]);
  });

  it('on SQLite without better-sqlite3: passes on node:sqlite, else refuses naming the install command', () => {
    const { code, stdout, stderr, left } = demo([], ['better-sqlite3']);

    if (hasNodeSqlite()) {
      expect(code).toBe(0);
      expect(stdout).toContain('PASS 5/5 steps');
    } else {
      expect(code).toBe(1);
      expect(stderr.trim().split('\n')).toEqual([expect.stringContaining('npm install better-sqlite3')]);
      expect(`${stdout}${stderr}`).not.toMatch(STACK_LINE);
    }
    expect(left).toEqual([]);
  });

  it('reports a connection error with its cause (a PostgreSQL URL without a user, `$USER` unset)', () => {
    const env = { USER: '', PGUSER: '', LOGNAME: '' };
    const { code, stderr, left } = demo(['--postgres', 'postgres://127.0.0.1:5432/test'], [], env);

    expect(code).toBe(1);
    expect(stderr).toContain('The demo cannot open its postgres ledger');
    expect(stderr).toContain('no PostgreSQL user name specified');
    expect(stderr).not.toMatch(STACK_LINE);
    expect(left).toEqual([]);
  });
});

describe('the demo stopped in the middle of a step', () => {
  it('removes its temp folder when it is sent SIGTERM', async () => {
    const tmp = mkdtempSync(join(tmpdir(), 'hyphae-demo-signal-'));
    temps.push(tmp);
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'demo'], {
      env: { ...process.env, NO_COLOR: '1', TMPDIR: tmp },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const started = new Promise<void>((resolve) => {
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (stdout.includes('1. ')) resolve();
      });
    });
    const exited = once(child, 'exit');

    await started;
    const during = readdirSync(tmp).filter((name) => name.startsWith('hyphae-demo-'));
    child.kill('SIGTERM');
    const [code] = await exited;

    expect(during).toHaveLength(1);
    expect(code).toBe(143);
    expect(readdirSync(tmp).filter((name) => name.startsWith('hyphae-demo-'))).toEqual([]);
  });
});

describe('the demo steps', () => {
  it('a first dispatch that fails at once rejects the pair, and is never an unhandled rejection', async () => {
    let calls = 0;
    const failing = () => {
      calls++;
      return Promise.reject(new Error(`dispatch ${calls} failed`));
    };

    await expect(dispatchTwice(failing, 20)).rejects.toThrow('dispatch 1 failed');
  });

  it('a worker that failed is described as failed, with its error, never as polled', () => {
    const line = describeWorker('worker-b', {
      ok: false,
      ran: false,
      code: 'ledger_storage_unavailable',
      message: 'boom',
    });

    expect(line).toBe('worker-b: failed → ledger_storage_unavailable: boom');
    expect(describeWorker('worker-a', { ok: true, ran: false, result: { n: 1 } })).toBe('worker-a: polled → {"n":1}');
  });
});
