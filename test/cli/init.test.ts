import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { hyphae, hyphaeBuilt } from '../config/cli-runner.js';
import { useTempDir } from '../config/helpers.js';

const tempDir = useTempDir();
const BUILT = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const KEY_ENV = { HYPHAE_RECEIPT_KEY: 'r'.repeat(48) };

describe('hyphae init', () => {
  it.each([
    ['the on-ramp', [], 'send_email'],
    ['the full reference', ['--full'], 'history_guard'],
    ['the minimal config', ['--minimal'], 'tools: {}'],
  ])('writes %s, which loads cleanly through loadConfig', async (_, flags, marker) => {
    const dir = tempDir();

    const { code, stdout } = hyphae(dir, ['init', ...flags]);
    const text = readFileSync(join(dir, 'hyphae.yaml'), 'utf8');
    const config = await loadConfig('hyphae.yaml', { cwd: dir, env: KEY_ENV });
    await config.close();

    expect(code).toBe(0);
    expect(stdout).toMatch(/^Wrote hyphae\.yaml/);
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=./node_modules/hyphae/hyphae.schema.json');
    expect(text).toContain(marker);
  });

  it('writes a scaffold with TODOs on a SQLite ledger by default', () => {
    const dir = tempDir();

    hyphae(dir, ['init']);
    const text = readFileSync(join(dir, 'hyphae.yaml'), 'utf8');

    expect(text).toContain('storage: sqlite');
    expect(text.match(/TODO/g)?.length).toBeGreaterThanOrEqual(3);
  });

  it('covers every section in the full reference', () => {
    const dir = tempDir();

    hyphae(dir, ['init', '--full', '-o', 'full.yaml']);
    const text = readFileSync(join(dir, 'full.yaml'), 'utf8');

    for (const section of [
      'profile',
      'transition',
      'action_ledger',
      'task_ledger',
      'run_snapshots',
      'receipts',
      'tools',
      'tasks',
      'registry',
      'runner',
      'fuses',
      'history_guard',
      'transcript',
    ]) {
      expect(text).toMatch(new RegExp(`^${section}:`, 'm'));
    }
  });

  it('refuses to overwrite without --force, and overwrites with it', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'hyphae.yaml'), 'mine: true\n');

    const refused = hyphae(dir, ['init']);
    const kept = readFileSync(join(dir, 'hyphae.yaml'), 'utf8');
    const forced = hyphae(dir, ['init', '--minimal', '--force']);

    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('`hyphae.yaml` exists; pass `--force` to overwrite it');
    expect(kept).toBe('mine: true\n');
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'hyphae.yaml'), 'utf8')).toContain('action_ledger:');
  });

  it('writes to -o FILE in a new folder, pointing editors at the schema from there', async () => {
    const dir = tempDir();

    const { code } = hyphae(dir, ['init', '-o', 'config/agent.yaml']);
    const text = readFileSync(join(dir, 'config', 'agent.yaml'), 'utf8');
    const config = await loadConfig('config/agent.yaml', { cwd: dir, env: {} });
    await config.close();

    expect(code).toBe(0);
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../node_modules/hyphae/hyphae.schema.json');
  });

  it('exits 2 on usage errors and prints its help', () => {
    const dir = tempDir();

    const both = hyphae(dir, ['init', '--full', '--minimal']);
    const unknown = hyphae(dir, ['init', '--yes']);
    const help = hyphae(dir, ['init', '--help']);

    expect(both.code).toBe(2);
    expect(both.stderr).toContain('Choose one of `--full` and `--minimal`');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('Unknown option `--yes` for `hyphae init`');
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: hyphae init \[-o FILE\] \[--full \| --minimal\] \[--force\]/);
    expect(existsSync(join(dir, 'hyphae.yaml'))).toBe(false);
  });

  it('--stores initialises the ledger stores of an existing config, and writes no config', () => {
    const dir = tempDir();
    hyphae(dir, ['init', '--minimal']);
    writeFileSync(
      join(dir, 'ledgers.yaml'),
      'transition: { agent_id: a, policy_version: 1 }\naction_ledger: { storage: sqlite, path: data/ledger.db }\n',
    );

    const stores = hyphae(dir, ['init', '--stores', '-c', 'ledgers.yaml']);
    const mixed = hyphae(dir, ['init', '--stores', '--full']);
    const stray = hyphae(dir, ['init', '-c', 'ledgers.yaml']);

    expect(stores.code).toBe(0);
    expect(stores.stdout).toMatch(/^Ledger sqlite: [0-9a-f-]{36} \(since /);
    expect(existsSync(join(dir, 'data', 'ledger.db'))).toBe(true);
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain('`--stores` reads a config (`-c FILE`); it takes no `--full`');
    expect(stray.code).toBe(2);
  });

  it.runIf(existsSync(BUILT))('runs from the built binary', async () => {
    const dir = tempDir();

    const { code } = hyphaeBuilt(BUILT, dir, ['init', '--full']);
    const doctor = hyphaeBuilt(BUILT, dir, ['doctor']);
    const config = await loadConfig('hyphae.yaml', { cwd: dir, env: KEY_ENV });
    await config.close();

    expect(code).toBe(0);
    // Without the receipt key in the environment, doctor names it and fails.
    expect(doctor.code).toBe(1);
    expect(doctor.stdout).toContain('FAIL  env HYPHAE_RECEIPT_KEY');
  });
});
