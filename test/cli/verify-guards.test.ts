import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';

const tempDir = useTempDir();
const HEADER = ['transition: { agent_id: a, policy_version: "1" }', 'action_ledger: { storage: sqlite, path: ./l.db }'];

interface Report {
  readonly summary: { pass: number; warn: number; fail: number };
  readonly results: readonly { scenario: string; tool: string | null; status: string; fix?: string }[];
}

function verify(dir: string, args: readonly string[] = [], env: NodeJS.ProcessEnv = {}) {
  const json = join(dir, 'report.json');
  const run = hyphae(dir, ['verify', ...args, '--json', json], env);
  const report = existsSync(json) ? (JSON.parse(readFileSync(json, 'utf8')) as Report) : undefined;
  return { ...run, report };
}

function statusOf(report: Report | undefined, scenario: string): string | undefined {
  return report?.results.find((r) => r.scenario === scenario)?.status;
}

describe('hyphae verify: a guard the config never asked for warns, a configured one that fails fails', () => {
  it('warns with the lines to add when there is no registry, no permission fuse and no loop fuse', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'hyphae.yaml'), yaml(...HEADER, 'tools:', '  lookup: { side_effect_class: read }'));
    const run = verify(dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(statusOf(run.report, 'refused_tool')).toBe('WARN');
    expect(statusOf(run.report, 'loop')).toBe('WARN');
    expect(run.report?.results.find((r) => r.scenario === 'loop')?.fix).toContain('repeat_threshold: 3');
    expect(run.stdout).toContain('    fuses:\n      loop:\n        repeat_threshold: 3');
  });

  it('warns of a missing loop fuse when other fuses are configured', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'hyphae.yaml'),
      yaml(...HEADER, 'tools:', '  lookup: { side_effect_class: read }', 'fuses: { budget: { max_tokens: 1000 } }'),
    );
    const run = verify(dir);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(statusOf(run.report, 'loop')).toBe('WARN');
  });

  it('fails a permission fuse configured to let unknown tools through', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'hyphae.yaml'),
      yaml(
        ...HEADER,
        'tools:',
        '  lookup: { side_effect_class: read }',
        'fuses: { permission: { granted: [], allow_unknown_tools: true }, loop: { repeat_threshold: 3 } }',
      ),
    );
    const run = verify(dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('FAIL refused_tool: the registry and the permission fuse let');
    expect(statusOf(run.report, 'loop')).toBe('PASS');
  });
});

describe('hyphae verify on the scaffolds of hyphae init', () => {
  it.each([
    ['the on-ramp', []],
    ['the minimal config', ['--minimal']],
    ['the full reference', ['--full']],
  ] as const)('%s has no FAIL', (name, flags) => {
    const dir = tempDir();
    const init = hyphae(dir, ['init', ...flags]);
    expect(init.code, init.stderr).toBe(0);
    const run = verify(dir, [], { HYPHAE_RECEIPT_KEY: 'k'.repeat(48) });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.report?.summary.fail).toBe(0);
    if (name !== 'the minimal config') {
      // The on-ramp and the full reference carry a registry and a loop fuse.
      expect(statusOf(run.report, 'refused_tool')).toBe('PASS');
      expect(statusOf(run.report, 'loop')).toBe('PASS');
    }
  });
});
