/**
 * The read-only commands on an empty PostgreSQL schema and an empty Redis: they read "no
 * transitions" and leave the servers as they were (no tables, no marker), so a later
 * `create: false` opening still finds the store empty rather than silently initialised.
 */
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { createClient } from 'redis';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';
import { integrationSkip, POSTGRES_URL, probePostgres, probeRedis, REDIS_URL } from '../helpers/integration.js';

const tempDir = useTempDir();
const skip = integrationSkip(await probeRedis()) || integrationSkip(await probePostgres());

async function redisKeys(prefix: string): Promise<string[]> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    return await client.keys(`${prefix}*`);
  } finally {
    await client.close();
  }
}

async function tables(prefix: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_name LIKE $1',
      [`${prefix}%`],
    );
    return rows.map((row) => row.table_name);
  } finally {
    await client.end();
  }
}

describe.skipIf(skip)('read-only commands never initialise a PostgreSQL or Redis store', () => {
  it('`transitions list` and `show` read an empty store as empty and leave it empty', async () => {
    const redisPrefix = `hyphae-ro-${randomBytes(4).toString('hex')}:`;
    const tablePrefix = `hyphae_ro${randomBytes(4).toString('hex')}_`;
    const dir = tempDir();
    writeFileSync(
      join(dir, 'hyphae.yaml'),
      yaml(
        'transition: { agent_id: a, policy_version: 1 }',
        `action_ledger: { storage: redis, url_env: RO_REDIS_URL, prefix: "${redisPrefix}" }`,
        `task_ledger: { storage: postgres, dsn_env: RO_PG_URL, table_prefix: ${tablePrefix} }`,
      ),
    );
    const env = { RO_REDIS_URL: REDIS_URL, RO_PG_URL: POSTGRES_URL };

    const listed = hyphae(dir, ['transitions', 'list'], env);
    const shown = hyphae(dir, ['transitions', 'show', 'a'.repeat(64)], env);

    expect(listed.stderr).toBe('');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain('No transitions match');
    expect(shown.code).toBe(1);
    expect(shown.stderr).toContain('No transition');
    expect(await redisKeys(redisPrefix)).toEqual([]);
    expect(await tables(tablePrefix)).toEqual([]);
  });
});
