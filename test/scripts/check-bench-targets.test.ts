import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type BenchTarget, checkTargets } from '../../scripts/check-bench-targets.mjs';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'check-bench-targets.mjs');
const figures = [
  { area: 'ledger', name: 'redis: call', value: 230, baseline: 200, ratio: 1.15 },
  { area: 'throughput', name: 'redis: 32 in flight', value: 30000, baseline: 40000, ratio: 0.75 },
];
const targets: BenchTarget[] = [
  { figure: 'ledger/redis: call', field: 'ratio', limit: { max: 1.3 }, goal: { max: 1.3 } },
  { figure: 'throughput/redis: 32 in flight', field: 'ratio', limit: { min: 0.7 }, goal: { min: 0.8 } },
];

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function run(givenTargets: unknown, givenFigures: unknown): { status: number; output: string } {
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-targets-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'targets.json'), JSON.stringify(givenTargets));
  writeFileSync(join(dir, 'results.json'), JSON.stringify(givenFigures));
  try {
    const output = execFileSync(process.execPath, [SCRIPT, join(dir, 'targets.json'), join(dir, 'results.json')], {
      encoding: 'utf8',
      stdio: 'pipe',
    });
    return { status: 0, output };
  } catch (error) {
    const failed = error as { status: number; stdout: string; stderr: string };
    return { status: failed.status, output: `${failed.stdout}${failed.stderr}` };
  }
}

describe('scripts/check-bench-targets.mjs', () => {
  it('passes figures within their limits and tells a met goal from a held limit', () => {
    const { rows, failures } = checkTargets(targets, figures);

    expect(failures).toEqual([]);
    expect(rows.map((row) => [row.ok, row.met])).toEqual([
      [true, true],
      [true, false],
    ]);
    const cli = run(targets, figures);
    expect(cli.status).toBe(0);
    expect(cli.output).toContain('1 met, 1 held at their limit, 0 failed');
  });

  it('fails a ratio that regressed past its limit, either way, and names it', () => {
    const slower = [
      { area: 'ledger', name: 'redis: call', value: 262, baseline: 200, ratio: 1.31 },
      { area: 'throughput', name: 'redis: 32 in flight', value: 27600, baseline: 40000, ratio: 0.69 },
    ];

    const { failures } = checkTargets(targets, slower);

    expect(failures).toEqual([
      'ledger/redis: call: ratio 1.31 is past its limit ≤ 1.3',
      'throughput/redis: 32 in flight: ratio 0.69 is past its limit ≥ 0.7',
    ]);
    const cli = run(targets, slower);
    expect(cli.status).toBe(1);
    expect(cli.output).toContain('bench target failed: ledger/redis: call: ratio 1.31 is past its limit ≤ 1.3');
  });

  it('fails a target whose figure is gone from the results', () => {
    expect(checkTargets(targets, figures.slice(0, 1)).failures).toEqual([
      'throughput/redis: 32 in flight: no such figure in the results',
    ]);
  });

  it('refuses a target that is not one, naming it', () => {
    const bad = [{ ...targets[0], limit: { below: 1 } }];

    expect(() => checkTargets(bad as unknown as BenchTarget[], figures)).toThrow(
      /target 0 \(ledger\/redis: call\): `limit` must be/,
    );
    expect(() => checkTargets([{ figure: 'no-area', field: 'ratio' }] as unknown as BenchTarget[], figures)).toThrow(
      /`figure` must be "<area>\/<figure name>"/,
    );
  });

  it('passes on the committed bench/targets.json and bench/results.json', () => {
    const cli = execFileSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
    expect(cli).toMatch(/\d+ bench targets: \d+ met, \d+ held at their limit, 0 failed/);
  });
});
