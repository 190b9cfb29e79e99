import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';

const tempDir = useTempDir();

function withConfig(...lines: string[]): string {
  const dir = tempDir();
  writeFileSync(join(dir, 'hyphae.yaml'), yaml(...lines));
  return dir;
}

const SQLITE = [
  'transition: { agent_id: a, policy_version: 1 }',
  'action_ledger: { storage: sqlite, path: data/ledger.db }',
];

describe('hyphae doctor: production stores', () => {
  it('fails every store whose records would not outlive the process, by the same rule', () => {
    const tools = ['tools:', '  pay: { side_effect_class: payment, identity: intent }'];
    const header = ['profile: production', 'transition: { agent_id: a, policy_version: 1 }'];
    const stores = ['{ storage: memory }', "{ storage: sqlite, path: ':memory:' }"];

    const runs = stores.map((store) => hyphae(withConfig(...header, `action_ledger: ${store}`, ...tools), ['doctor']));

    for (const { code, stdout } of runs) {
      expect(code).toBe(1);
      expect(stdout).toMatch(
        /FAIL +action ledger +The production profile refuses a store whose records do not outlive/,
      );
    }
  });
});

describe('hyphae doctor: passing', () => {
  it('passes a fresh on-ramp config without creating its database', () => {
    const dir = tempDir();
    hyphae(dir, ['init']);

    const { code, stdout } = hyphae(dir, ['doctor']);

    expect(code).toBe(0);
    expect(stdout).toMatch(/^ok {4}config {9}hyphae\.yaml is valid \(profile development\)$/m);
    expect(stdout).toMatch(/ok {4}action ledger {2}sqlite .*ledger\.db does not exist yet; it is created on first use/);
    expect(stdout).toContain('All checks passed');
  });

  it('opens an existing store and checks its schema, snapshots and receipt key', async () => {
    const dir = withConfig(
      ...SQLITE,
      'run_snapshots: { storage: sqlite, path: data/ledger.db }',
      'receipts: { algorithm: hmac-sha256, key_env: RECEIPT_KEY, key_id: k1 }',
    );
    const storage = createSqliteStorage({ path: join(dir, 'data', 'ledger.db') });
    await storage.ensureSchema();
    await storage.close();

    const { code, stdout } = hyphae(dir, ['doctor', '--json'], { RECEIPT_KEY: 'k'.repeat(40) });
    const report = JSON.parse(stdout) as { ok: boolean; items: { name: string; ok: boolean; detail: string }[] };

    expect(code).toBe(0);
    expect(report.ok).toBe(true);
    expect(report.items.map((item) => [item.name, item.ok])).toEqual([
      ['config', true],
      ['env RECEIPT_KEY', true],
      ['action ledger', true],
      ['run snapshots', true],
      ['receipt key', true],
      ['receipt sink', true],
    ]);
    expect(report.items[2]?.detail).toMatch(/schema version readable\nledger [0-9a-f-]{36} since /);
  });
});

describe('hyphae doctor: failing, with the fix', () => {
  it('reports an invalid config at its line and column', () => {
    const dir = withConfig('transition:', '  agent_id: a', '  policy_version: 1', '  lease_ttl: 0s');

    const { code, stdout } = hyphae(dir, ['doctor']);

    expect(code).toBe(1);
    expect(stdout).toContain('FAIL  config');
    expect(stdout).toContain('hyphae.yaml:4:14 `transition.lease_ttl`: Expected a duration greater than 0');
    expect(stdout).toContain('fix: correct the keys above');
    expect(stdout).toContain('1 of 1 checks failed');
  });

  it('reports a missing config with the command that creates one', () => {
    const { code, stdout } = hyphae(tempDir(), ['doctor', '-c', 'agent.yaml']);

    expect(code).toBe(1);
    expect(stdout).toContain('FAIL  config  agent.yaml not found');
    expect(stdout).toContain('fix: create one with `hyphae init` or pass `-c FILE`');
  });

  it('reports each missing environment variable without trying to connect', () => {
    const dir = withConfig(
      'transition: { agent_id: a, policy_version: 1 }',
      'action_ledger: { storage: redis, url_env: HYPHAE_DOCTOR_REDIS }',
    );

    const { code, stdout } = hyphae(dir, ['doctor']);

    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL {2}env HYPHAE_DOCTOR_REDIS {2}not set \(named by `action_ledger\.url_env`\)/);
    expect(stdout).not.toContain('action ledger');
  });

  it('refuses a receipt key that is too short, and says how to make one', () => {
    const dir = withConfig(
      ...SQLITE,
      'receipts: { algorithm: hmac-sha256, key_env: RECEIPT_KEY, key_id: k1, path: r.jsonl }',
    );

    const { code, stdout } = hyphae(dir, ['doctor'], { RECEIPT_KEY: 'short' });

    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL {2}receipt key +HMAC key `k1` is 5 bytes/);
    expect(stdout).toContain('fix: use a random secret of at least 32 bytes: `openssl rand -base64 48`');
    expect(stdout).toMatch(/ok {4}action ledger/);
  });

  it('fails a file that is not a SQLite database', () => {
    const dir = withConfig(...SQLITE);
    mkdirSync(join(dir, 'data'));
    writeFileSync(
      join(dir, 'data', 'ledger.db'),
      'this is not a database, it is a text file with enough bytes to be read',
    );

    const { code, stdout } = hyphae(dir, ['doctor']);

    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL {2}action ledger {2}sqlite .*ledger\.db: .*the file is not a SQLite database/);
    expect(stdout).toContain('fix: restore the store from a backup');
  });

  it('fails a store written by a newer hyphae and says to upgrade', async () => {
    const dir = withConfig(...SQLITE);
    const path = join(dir, 'data', 'ledger.db');
    const storage = createSqliteStorage({ path });
    await storage.ensureSchema();
    await storage.close();
    const db = new Database(path);
    db.prepare(`UPDATE hyphae_meta SET value = '99' WHERE name = 'schema_version'`).run();
    db.close();

    const { code, stdout } = hyphae(dir, ['doctor']);

    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL {2}action ledger .*schema version `99` is newer/);
    expect(stdout).toContain('fix: upgrade hyphae');
  });

  it('exits 2 on a usage error, prints help, and colours only when asked', () => {
    const dir = withConfig(...SQLITE);

    const usage = hyphae(dir, ['doctor', 'now']);
    const help = hyphae(dir, ['help', 'doctor']);
    const coloured = hyphae(dir, ['doctor'], { NO_COLOR: '', FORCE_COLOR: '1' });
    const plain = hyphae(dir, ['doctor'], { NO_COLOR: '1', FORCE_COLOR: '1' });

    expect(usage.code).toBe(2);
    expect(help.stdout).toMatch(/^Usage: hyphae doctor \[-c FILE\]/);
    expect(coloured.stdout).toContain('\u001b[32mok  \u001b[39m');
    expect(plain.stdout).not.toContain('\u001b[');
  });
});
