import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';
import { integrationSkip, POSTGRES_URL, probePostgres, probeRedis, REDIS_URL } from '../helpers/integration.js';

const tempDir = useTempDir();
const skip = integrationSkip(await probeRedis()) || integrationSkip(await probePostgres());

describe.skipIf(skip)('hyphae doctor on Redis and PostgreSQL', () => {
  it('connects to both stores named by environment variables', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'hyphae.yaml'),
      yaml(
        'transition: { agent_id: a, policy_version: 1 }',
        'action_ledger: { storage: redis, url_env: DOCTOR_REDIS_URL, prefix: "hyphae-doctor:" }',
        'task_ledger: { storage: postgres, dsn_env: DOCTOR_PG_URL, table_prefix: hyphae_doctor_ }',
      ),
    );

    const { code, stdout } = hyphae(dir, ['doctor'], { DOCTOR_REDIS_URL: REDIS_URL, DOCTOR_PG_URL: POSTGRES_URL });

    expect(stdout).toMatch(/ok +action ledger +redis: connected/);
    expect(stdout).toMatch(/ok +task ledger +postgres: schema version readable/);
    expect(code).toBe(0);
  });

  it('fails an unreachable server within the timeout, with the fix', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'hyphae.yaml'),
      yaml(
        'transition: { agent_id: a, policy_version: 1 }',
        'action_ledger: { storage: postgres, dsn: "postgres://u@127.0.0.1:1/x" }',
      ),
    );

    const { code, stdout } = hyphae(dir, ['doctor', '--timeout', '3000']);

    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL {2}action ledger {2}postgres: /);
    expect(stdout).toContain('fix: check the connection string');
  });
});
