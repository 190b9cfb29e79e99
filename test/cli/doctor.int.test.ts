import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';
import { integrationSkip, POSTGRES_URL, probePostgres, probeRedis, REDIS_URL } from '../helpers/integration.js';
import { hasRedisServer, type OwnRedis, startOwnRedis } from '../helpers/own-redis.js';
import { deleteRedisKeys } from '../helpers/server-stores.js';

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

  it('reports the ledger id of Redis and PostgreSQL, the same on every run', () => {
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
