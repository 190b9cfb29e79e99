import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { integrationSkip, POSTGRES_URL, probePostgres, probeRedis, REDIS_URL } from '../helpers/integration.js';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

function demo(args: readonly string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', main, 'demo', ...args], {
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1' },
    timeout: 90_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

const backends = [
  { flag: '--redis', url: REDIS_URL, skip: integrationSkip(await probeRedis()) },
  { flag: '--postgres', url: POSTGRES_URL, skip: integrationSkip(await probePostgres()) },
];

for (const backend of backends) {
  describe.skipIf(backend.skip)(`hyphae demo ${backend.flag}`, () => {
    it('runs every step on the shared ledger, and two worker processes execute the call once', () => {
      const { code, stdout, stderr } = demo([backend.flag, backend.url]);

      expect(stderr).toBe('');
      expect(code).toBe(0);
      expect(stdout).toContain('PASS 6/6 steps');
      expect(stdout).toMatch(/worker-a: (executed|polled)/);
      expect(stdout).toMatch(/worker-b: (executed|polled)/);
      expect(stdout).toContain('executions: 1 (expected 1); same result: yes');
    });

    it('passes again on a second run: every run has its own scope', () => {
      const { code, stdout } = demo([backend.flag, backend.url]);

      expect(code).toBe(0);
      expect(stdout).toContain('PASS 6/6 steps');
    });
  });
}

describe('hyphae demo backend options', () => {
  it('refuses a backend flag without a URL', () => {
    const { code, stderr } = demo(['--redis']);

    expect(code).toBe(2);
    expect(stderr).toContain('`--redis` needs a URL');
  });

  it('refuses two backends at once', () => {
    const { code, stderr } = demo(['--redis', REDIS_URL, '--postgres', POSTGRES_URL]);

    expect(code).toBe(2);
    expect(stderr).toContain('Choose one of `--redis` and `--postgres`');
  });
});
