/**
 * The store drivers by kind, on the real servers: each opens its ledger storage from a target,
 * keeps the facts a report needs without a secret, and isolates a store beside a user's that its
 * cleanup removes entirely.
 */
import { existsSync } from 'node:fs';
import pg from 'pg';
import { createClient } from 'redis';
import { afterAll, describe, expect, it } from 'vitest';
import { driverOf, redactedUrl, STORE_KINDS, type StoreTarget, storeFacts } from '../../src/storage/drivers.js';
import { makeTestRecord } from '../../src/testing/index.js';
import { integrationSkip, POSTGRES_URL, probePostgres, probeRedis, REDIS_URL } from '../helpers/integration.js';

const skipRedis = integrationSkip(await probeRedis());
const skipPostgres = integrationSkip(await probePostgres());
const redis = createClient({ url: REDIS_URL });
const pool = new pg.Pool({ connectionString: POSTGRES_URL, max: 1 });
afterAll(async () => {
  if (redis.isOpen) await redis.close();
  await pool.end();
});

/** What an isolated store leaves behind after its cleanup: keys, tables, or its file. */
async function leftOver(target: StoreTarget): Promise<number> {
  if (target.kind === 'redis') {
    if (!redis.isOpen) await redis.connect();
    return (await redis.keys(`${target.prefix}*`)).length;
  }
  if (target.kind === 'postgres') {
    const { rows } = await pool.query(
      'select count(*)::int as n from information_schema.tables where table_schema = $1 and starts_with(table_name, $2)',
      [target.schema, target.tablePrefix],
    );
    return (rows[0] as { n: number }).n;
  }
  if (target.kind === 'sqlite') return existsSync(target.path) ? 1 : 0;
  return 0;
}

const targets: { target: StoreTarget; skip: boolean }[] = [
  { target: { kind: 'memory' }, skip: false },
  { target: { kind: 'sqlite', path: '/var/lib/hyphae/ledger.db', synchronous: 'NORMAL' }, skip: false },
  { target: { kind: 'redis', url: REDIS_URL, prefix: 'hyphae-test:drivers:' }, skip: skipRedis },
  { target: { kind: 'postgres', dsn: POSTGRES_URL, tablePrefix: 'hyphae_drivers_' }, skip: skipPostgres },
];

describe('the store drivers', () => {
  it('cover every kind, each naming its own', () => {
    expect(STORE_KINDS).toEqual(['memory', 'sqlite', 'redis', 'postgres']);
    for (const kind of STORE_KINDS) expect(driverOf({ kind }).kind).toBe(kind);
  });

  it('describe a store without its secret, and redact a password', () => {
    const secret = { kind: 'redis', url: 'redis://app:s3cret@cache:6379', cluster: true } as const;
    expect(storeFacts(secret)).toMatchObject({
      title: 'Redis',
      describe: 'redis cluster',
      server: true,
      file: undefined,
    });
    expect(JSON.stringify(storeFacts(secret))).not.toContain('s3cret');
    expect(redactedUrl(secret)).toBe('redis://app:***@cache:6379');
    expect(storeFacts({ kind: 'sqlite', path: '/x/ledger.db' })).toMatchObject({ file: '/x/ledger.db', server: false });
    expect(storeFacts({ kind: 'sqlite', path: ':memory:' }).file).toBeUndefined();
    expect(storeFacts({ kind: 'memory' })).toMatchObject({ inProcess: true, describe: 'memory' });
  });

  for (const { target, skip } of targets) {
    it.skipIf(skip)(
      `${target.kind}: an isolated store opens, holds a record, and is removed by its cleanup`,
      async () => {
        const driver = driverOf(target);
        const isolated = await driver.isolate(target, Math.random().toString(16).slice(2, 10));
        expect(isolated.target.kind).toBe(target.kind);
        expect(isolated.describe).not.toContain('@');
        const storage = await driver.open(isolated.target);
        const record = makeTestRecord();
        try {
          expect((await storage.create(record)).created).toBe(true);
          expect((await storage.get(record.key))?.key).toBe(record.key);
        } finally {
          await storage.close();
        }
        if (target.kind !== 'memory') expect(await leftOver(isolated.target)).toBeGreaterThan(0);
        await isolated.cleanup();
        expect(await leftOver(isolated.target)).toBe(0);
      },
    );
  }
});
