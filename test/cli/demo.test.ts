import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { childEnv } from '../config/cli-runner.js';

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

function hyphae(args: readonly string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', main, ...args], {
    encoding: 'utf8',
    env: childEnv(process.env, { NO_COLOR: '', FORCE_COLOR: '', ...env }),
    timeout: 60_000,
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('hyphae demo', () => {
  it('runs the five steps on SQLite and passes each', () => {
    const { code, stdout } = hyphae(['demo'], { NO_COLOR: '1' });

    expect(code).toBe(0);
    expect(stdout.match(/^ {3}PASS$/gm)).toHaveLength(5);
    expect(stdout).toContain('executions: 2 (expected 2');
    expect(stdout).toContain('executions: 1 (expected 1)');
    expect(stdout).toContain('child process killed by SIGKILL');
    expect(stdout).toMatch(/outcome `EXPIRED`, boundary `maybe_crossed`, external ref `pi_order-42`/);
    expect(stdout).toContain('reconciler verdicts: NOT_EXECUTED');
    expect(stdout).toContain('PASS 5/5 steps');
  });

  it('prints no colour when NO_COLOR is set, even when colour is forced', () => {
    const { stdout } = hyphae(['demo'], { NO_COLOR: '1', FORCE_COLOR: '1' });

    expect(stdout).not.toContain('\u001b[');
  });

  it('colours PASS when colour is forced and NO_COLOR is unset', () => {
    const { stdout } = hyphae(['demo'], { FORCE_COLOR: '1' });

    expect(stdout).toContain('\u001b[32mPASS\u001b[39m');
  });

  it('prints no colour when stdout is not a TTY', () => {
    const { stdout } = hyphae(['demo']);

    expect(stdout).not.toContain('\u001b[');
  });
});

describe('hyphae command line', () => {
  it('refuses an unknown command with usage and exit code 2', () => {
    const { code, stderr } = hyphae(['frobnicate']);

    expect(code).toBe(2);
    expect(stderr).toContain('Unknown command `frobnicate`');
    expect(stderr).toContain('Usage: hyphae');
  });

  it('refuses an unknown demo option', () => {
    const { code, stderr } = hyphae(['demo', '--fast']);

    expect(code).toBe(2);
    expect(stderr).toContain('Unknown option `--fast`');
  });

  it('prints the package version', () => {
    const { code, stdout } = hyphae(['--version']);

    expect(code).toBe(0);
    expect(stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
