import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';
import { damageKeyIndex } from '../helpers/sqlite-damage.js';

const tempDir = useTempDir();

async function ledgerDir(): Promise<{ dir: string; file: string; keys: string[] }> {
  const dir = tempDir();
  writeFileSync(
    join(dir, 'hyphae.yaml'),
    yaml('transition: { agent_id: a, policy_version: 1 }', 'action_ledger: { storage: sqlite, path: data/ledger.db }'),
  );
  const file = join(dir, 'data', 'ledger.db');
  // The driver the CLI itself picks on this runtime, so both sides see one another's locks.
  const storage = createSqliteStorage({ path: file });
  const records = [makeTestRecord(), makeTestRecord(), makeTestRecord()];
  for (const record of records) await storage.create(record);
  await storage.close();
  return { dir, file, keys: records.map((record) => record.key) };
}

describe('hyphae doctor --deep', () => {
  it('runs integrity_check on the SQLite ledger and reports it ok', async () => {
    const { dir, file } = await ledgerDir();
    const { code, stdout } = hyphae(dir, ['doctor', '--deep', '--json']);
    const report = JSON.parse(stdout) as { ok: boolean; items: { name: string; ok: boolean; detail: string }[] };
    expect(code).toBe(0);
    expect(report.items.at(-1)).toEqual({
      name: `integrity ${file}`,
      ok: true,
      detail: expect.stringMatching(/^integrity_check ok \(\d+ pages in \d+ ms\)$/),
    });
  });

  it('finds a damaged index, which the ledger also refuses to open, and says how to rebuild it', async () => {
    const { dir, keys } = await ledgerDir();
    damageKeyIndex(join(dir, 'data', 'ledger.db'), keys[1] ?? '', 'key');

    const plain = hyphae(dir, ['doctor']);
    const deep = hyphae(dir, ['doctor', '--deep']);

    expect(plain.code).toBe(1);
    expect(plain.stdout).toContain(
      '1 record(s) of `hyphae_transitions` cannot be found through the key or ticket index',
    );
    expect(deep.code).toBe(1);
    expect(deep.stdout).toMatch(/FAIL {2}integrity .*ledger\.db {2}integrity_check found 1 problem\(s\)/);
    expect(deep.stdout).toContain('missing from index sqlite_autoindex_hyphae_transitions_1');
    expect(deep.stdout).toContain('REINDEX');
  });
});
