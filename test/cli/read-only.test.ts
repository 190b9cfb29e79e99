import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';

const tempDir = useTempDir();
const CONFIG = yaml(
  'transition: { agent_id: agent, policy_version: 1 }',
  'action_ledger: { storage: sqlite, path: .hyphae/ledger.db }',
  'tools:',
  '  send_payment: { side_effect_class: payment }',
);

function project(): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'hyphae.yaml'), CONFIG);
  return dir;
}

async function withRecords(dir: string, keys: readonly string[]): Promise<void> {
  const storage = createSqliteStorage({ path: join(dir, '.hyphae', 'ledger.db') });
  for (const key of keys) await storage.create(makeTestRecord({ key }));
  await storage.close();
}

describe('read-only commands never create a store', () => {
  it('`transitions list` and `show` on a ledger file that does not exist yet create nothing', () => {
    const dir = project();

    const listed = hyphae(dir, ['transitions', 'list']);
    const shown = hyphae(dir, ['transitions', 'show', 'a'.repeat(64)]);

    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('No transitions match');
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('No transition');
    expect(existsSync(join(dir, '.hyphae'))).toBe(false);
    expect(readdirSync(dir)).toEqual(['hyphae.yaml']);
  });

  it('`receipts verify` of a file that does not exist creates nothing', () => {
    const dir = project();

    const verified = hyphae(dir, ['receipts', 'verify', '.hyphae/receipts.jsonl', '--key-env', 'K'], {
      K: 'k'.repeat(48),
    });

    expect(verified.code).toBe(2);
    expect(readdirSync(dir)).toEqual(['hyphae.yaml']);
  });
});

describe('transitions show KEY-PREFIX', () => {
  const first = `abcd1${'0'.repeat(59)}`;
  const second = `abcd2${'0'.repeat(59)}`;

  it('shows the one transition a unique prefix names', async () => {
    const dir = project();
    await withRecords(dir, [first, second]);

    const shown = hyphae(dir, ['transitions', 'show', 'abcd2', '--json']);

    expect(shown.code).toBe(0);
    expect((JSON.parse(shown.stdout) as { key: string }).key).toBe(second);
  });

  it('refuses an ambiguous prefix and lists the candidates', async () => {
    const dir = project();
    await withRecords(dir, [first, second]);

    const shown = hyphae(dir, ['transitions', 'show', 'abcd']);

    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('the key prefix `abcd` is ambiguous; it starts 2 transition keys');
    expect(shown.stderr).toContain(`  ${first}`);
    expect(shown.stderr).toContain(`  ${second}`);
    expect(shown.stdout).toBe('');
  });

  it('takes no prefix shorter than 4 hex digits', async () => {
    const dir = project();
    await withRecords(dir, [first]);

    const shown = hyphae(dir, ['transitions', 'show', 'abc']);

    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('No transition `abc`');
  });
});

describe('doctor before the ledger file exists', () => {
  const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
  const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
  const HIDE = new URL('../fixtures/hide-packages.mjs', import.meta.url).href;

  it('loads the SQLite driver: with none to load it fails and names the install command', () => {
    const dir = project();
    const result = spawnSync(process.execPath, ['--import', TSX, '--import', HIDE, MAIN, 'doctor'], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...process.env, NO_COLOR: '1', HYPHAE_HIDE_PACKAGES: 'better-sqlite3' },
      timeout: 60_000,
    });
    const nodeSqlite = spawnSync(process.execPath, ['-e', "new (require('node:sqlite').DatabaseSync)(':memory:')"]);

    if (nodeSqlite.status === 0) {
      expect(result.status).toBe(0);
      expect(result.stdout).toContain('All checks passed');
    } else {
      expect(result.status).toBe(1);
      expect(result.stdout).toMatch(/FAIL {2}action ledger .*does not exist yet, and the SQLite driver does not load/);
      expect(result.stdout).toContain('fix: run `npm install better-sqlite3`');
      expect(result.stdout).not.toContain('All checks passed');
    }
    expect(readdirSync(dir)).toEqual(['hyphae.yaml']);
  });
});
