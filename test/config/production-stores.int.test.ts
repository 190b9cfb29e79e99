/**
 * Under the production profile a Redis or PostgreSQL store opens with `create: false`: a store that
 * holds no ledger is refused at the first call instead of being started as a new, empty ledger.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { LedgerStorageCorruptError } from '../../src/errors.js';
import { createPostgresStorage } from '../../src/storage/postgres.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import { integrationSkip, POSTGRES_URL, probePostgres, probeRedis, REDIS_URL } from '../helpers/integration.js';
import { deleteRedisKeys } from '../helpers/server-stores.js';
import { rejectionOf } from '../ledger/ledger-helpers.js';
import { yaml } from './helpers.js';

const skip = integrationSkip(await probeRedis()) || integrationSkip(await probePostgres());
const tag = randomBytes(4).toString('hex');
const redisPrefix = `hyphae-prod-${tag}:`;
const tablePrefix = `hyphae_prod${tag}_`;

function config(profile: string, store: string) {
  return loadConfig(
    {
      text: yaml(
        `profile: ${profile}`,
        'transition: { agent_id: a, policy_version: 1 }',
        `action_ledger: ${store}`,
        'tools:',
        '  pay: { side_effect_class: payment, identity: intent }',
      ),
    },
    { env: { REDIS_URL, PG_URL: POSTGRES_URL } },
  );
}

describe.skipIf(skip)('production profile: only an existing ledger opens', () => {
  afterAll(async () => {
    await deleteRedisKeys(REDIS_URL, redisPrefix);
    const admin = new pg.Client({ connectionString: POSTGRES_URL });
    await admin.connect();
    await admin.query(`DROP TABLE IF EXISTS "${tablePrefix}transitions", "${tablePrefix}meta"`);
    await admin.end();
  });

  const stores = {
    redis: {
      block: `{ storage: redis, url_env: REDIS_URL, prefix: "${redisPrefix}" }`,
      initialise: () => createRedisStorage({ url: REDIS_URL }, { prefix: redisPrefix }),
    },
    postgres: {
      block: `{ storage: postgres, dsn_env: PG_URL, table_prefix: ${tablePrefix} }`,
      initialise: () => createPostgresStorage({ connectionString: POSTGRES_URL }, { tablePrefix }),
    },
  };

  for (const [name, store] of Object.entries(stores)) {
    it(`${name}: refuses a store that holds no ledger, runs once it is initialised`, async () => {
      const production = await config('production', store.block);
      let runs = 0;
      const pay = production.instrument({
        pay: async (_args: { readonly amount: number }, _options: { readonly toolCallId: string }) => {
          runs += 1;
          return 'paid';
        },
      }).pay;

      const refused = await rejectionOf(pay({ amount: 1 }, { toolCallId: 'c1' }));
      const initialiser = store.initialise();
      await initialiser.identity();
      await initialiser.close();
      const paid = await pay({ amount: 1 }, { toolCallId: 'c1' });
      await production.close();

      expect(refused).toBeInstanceOf(LedgerStorageCorruptError);
      expect((refused as Error).message).toMatch(/holds no ledger/);
      expect(paid).toBe('paid');
      expect(runs).toBe(1);
    });
  }
});
