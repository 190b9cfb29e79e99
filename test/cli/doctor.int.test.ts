import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresStorage } from '../../src/storage/postgres.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';
import { integrationSkip, POSTGRES_URL, probePostgres, probeRedis, REDIS_URL } from '../helpers/integration.js';
import { hasRedisServer, type OwnRedis, startOwnRedis } from '../helpers/own-redis.js';
import { deleteRedisKeys } from '../helpers/server-stores.js';

const tempDir = useTempDir();
const skip = integrationSkip(await probeRedis()) || integrationSkip(await probePostgres());

describe.skipIf(skip)('hyphae doctor on Redis and PostgreSQL', () => {
  it('connects to both stores named by environment variables, and initialises neither', async () => {
    const redisPrefix = `hyphae-doctor-${randomBytes(4).toString('hex')}:`;
    const tablePrefix = `hyphae_doc${randomBytes(4).toString('hex')}_`;
    const dir = tempDir();
    writeFileSync(
      join(dir, 'hyphae.yaml'),
      yaml(
        'transition: { agent_id: a, policy_version: 1 }',
        `action_ledger: { storage: redis, url_env: DOCTOR_REDIS_URL, prefix: "${redisPrefix}" }`,
        `task_ledger: { storage: postgres, dsn_env: DOCTOR_PG_URL, table_prefix: ${tablePrefix} }`,
      ),
    );
    const env = { DOCTOR_REDIS_URL: REDIS_URL, DOCTOR_PG_URL: POSTGRES_URL };

    const empty = hyphae(dir, ['doctor'], env);
    const keys = await redisKeyCount(redisPrefix);
    const tables = await tableCount(tablePrefix);
    const init = hyphae(dir, ['init', '--stores'], env);
    const ready = hyphae(dir, ['doctor'], env);
    await deleteRedisKeys(REDIS_URL, redisPrefix);
    await dropTables(tablePrefix);

    expect(empty.stdout).toMatch(/ok +action ledger +redis: connected; holds no ledger yet/);
    expect(empty.stdout).toMatch(/ok +task ledger +postgres.*: holds no ledger yet \(it is initialised on first use\)/);
    expect(empty.code).toBe(0);
    expect(keys).toBe(0);
    expect(tables).toBe(0);
    expect(init.code).toBe(0);
    expect(ready.stdout).toMatch(/ok +action ledger +redis: connected\n +ledger [0-9a-f-]{36}/);
    expect(ready.stdout).toMatch(/ok +task ledger +postgres.*: schema version readable/);
    expect(ready.code).toBe(0);
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

async function redisKeyCount(prefix: string): Promise<number> {
  const { createClient } = await import('redis');
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  try {
    return (await client.keys(`${prefix}*`)).length;
  } finally {
    await client.close();
  }
}

async function withPg<T>(body: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    return await body(client);
  } finally {
    await client.end();
  }
}

function tableCount(prefix: string): Promise<number> {
  return withPg(async (client) => {
    const { rows } = await client.query<{ n: string }>(
      `SELECT count(*) AS n FROM information_schema.tables WHERE table_name LIKE $1`,
      [`${prefix}%`],
    );
    return Number(rows[0]?.n);
  });
}

function dropTables(prefix: string): Promise<void> {
  return withPg(async (client) => {
    await client.query(`DROP TABLE IF EXISTS "${prefix}transitions", "${prefix}meta"`);
  });
}

const LEDGER_ID = /ledger [0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12} since \d{4}-/;

describe.skipIf(skip || !(await hasRedisServer()))('hyphae doctor: what each store says of itself', () => {
  let evicting: OwnRedis;
  const tablePrefix = `hyphae_dr${randomBytes(4).toString('hex')}_`;

  beforeAll(async () => {
    evicting = await startOwnRedis(['--maxmemory', '3mb', '--maxmemory-policy', 'allkeys-lru']);
  });

  afterAll(async () => {
    await evicting?.stop();
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`DROP TABLE IF EXISTS "${tablePrefix}transitions", "${tablePrefix}meta"`);
    await admin.end();
  });

  function doctorOn(store: string, tool: string, env: NodeJS.ProcessEnv = {}) {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'hyphae.yaml'),
      yaml('transition: { agent_id: a, policy_version: 1 }', `action_ledger: ${store}`, 'tools:', `  ${tool}`),
    );
    return hyphae(dir, ['doctor'], { DOCTOR_REDIS_URL: evicting.url, ...env });
  }

  it('fails an evicting Redis for a side-effecting tool, with the policy and the fix', () => {
    const { code, stdout } = doctorOn(
      '{ storage: redis, url_env: DOCTOR_REDIS_URL }',
      'pay: { side_effect_class: payment }',
    );

    expect(code).toBe(1);
    expect(stdout).toMatch(/FAIL +action ledger +redis: connected/);
    expect(stdout).toMatch(/`maxmemory-policy` is `allkeys-lru`.*side-effecting tools \(`pay`\)/);
    expect(stdout).toContain('fix: run the server with `maxmemory-policy noeviction`');
  });

  it('passes an evicting Redis with a warning when the tools only read, or when `allow_eviction` accepts it', () => {
    const reads = doctorOn('{ storage: redis, url_env: DOCTOR_REDIS_URL }', 'lookup: { side_effect_class: read }');
    const accepted = doctorOn(
      '{ storage: redis, url_env: DOCTOR_REDIS_URL, allow_eviction: true }',
      'pay: { side_effect_class: payment }',
    );

    expect(reads.code).toBe(0);
    expect(reads.stdout).toMatch(/warning: Redis `maxmemory-policy` is `allkeys-lru`/);
    expect(accepted.code).toBe(0);
    expect(accepted.stdout).toMatch(/warning: .*\(accepted\)/);
  });

  it('reports the ledger id of Redis and PostgreSQL, the same on every run', async () => {
    // Doctor only reads: the ledgers exist once something has used them.
    for (const storage of [
      createRedisStorage({ url: evicting.url }, { allowEviction: true }),
      createPostgresStorage({ connectionString: POSTGRES_URL }, { tablePrefix }),
    ]) {
      await storage.identity();
      await storage.close();
    }
    const redis = doctorOn('{ storage: redis, url_env: DOCTOR_REDIS_URL }', 'lookup: { side_effect_class: read }');
    const postgres = [1, 2].map(
      () =>
        doctorOn(
          `{ storage: postgres, dsn_env: DOCTOR_PG_URL, table_prefix: ${tablePrefix} }`,
          'pay: { side_effect_class: payment }',
          {
            DOCTOR_PG_URL: POSTGRES_URL,
          },
        ).stdout,
    );

    expect(redis.stdout).toMatch(LEDGER_ID);
    expect(postgres[0]).toMatch(LEDGER_ID);
    expect(postgres[0]?.match(LEDGER_ID)?.[0]).toBe(postgres[1]?.match(LEDGER_ID)?.[0]);
  });
});

describe.skipIf(skip)('hyphae init --stores: the production profile opens only an existing ledger', () => {
  const redisPrefix = `hyphae-init-stores-${randomBytes(4).toString('hex')}:`;
  const tablePrefix = `hyphae_is${randomBytes(4).toString('hex')}_`;

  afterAll(async () => {
    await deleteRedisKeys(REDIS_URL, redisPrefix);
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`DROP TABLE IF EXISTS "${tablePrefix}transitions", "${tablePrefix}meta"`);
    await admin.end();
  });

  it('doctor refuses a store that holds no ledger until `init --stores` initialises it once', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'hyphae.yaml'),
      yaml(
        'profile: production',
        'transition: { agent_id: a, policy_version: 1 }',
        `action_ledger: { storage: redis, url_env: DOCTOR_REDIS_URL, prefix: "${redisPrefix}" }`,
        `task_ledger: { storage: postgres, dsn_env: DOCTOR_PG_URL, table_prefix: ${tablePrefix} }`,
        'tools:',
        '  lookup: { side_effect_class: read }',
      ),
    );
    const env = { DOCTOR_REDIS_URL: REDIS_URL, DOCTOR_PG_URL: POSTGRES_URL };

    const before = hyphae(dir, ['doctor'], env);
    const init = hyphae(dir, ['init', '--stores'], env);
    const after = hyphae(dir, ['doctor'], env);

    expect(before.code).toBe(1);
    expect(before.stdout).toMatch(/FAIL +action ledger +redis: .*holds no ledger/);
    expect(before.stdout).toMatch(/FAIL +task ledger +postgres: .*holds no ledger/);
    expect(before.stdout).toContain('fix: a new deployment, or a store written before ledger ids: initialise it once');
    expect(init.code).toBe(0);
    const ids = [...init.stdout.matchAll(/Ledger (redis|postgres): ([0-9a-f-]{36})/g)].map((match) => match[2]);
    expect(ids).toHaveLength(2);
    expect(after.code).toBe(0);
    for (const id of ids) expect(after.stdout).toContain(`ledger ${id}`);
  });
});
