/**
 * A Redis ledger that loses records — a server restarted empty under a running call, a record
 * deleted or evicted while its ticket stays — fails closed: the caller whose effect happened gets
 * its result, the failure is `LedgerStorageCorruptError`, and a redispatch never runs it again.
 */
import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerStorageCorruptError } from '../../src/errors.js';
import { sideEffect } from '../../src/ledger/boundary-markers.js';
import { createLedger } from '../../src/ledger/create-ledger.js';
import type { LedgerStorage } from '../../src/storage/ledger-storage.js';
import { createRedisStorage, type RedisStorageSettings } from '../../src/storage/redis.js';
import { makeTestRecord } from '../../src/testing/storage-conformance.js';
import { integrationSkip, probeRedis, REDIS_URL } from '../helpers/integration.js';
import { type RedisClientKind, redisStorageOn } from '../helpers/ioredis-storage.js';
import { hasRedisServer, type OwnRedis, startOwnRedis } from '../helpers/own-redis.js';
import { deleteRedisKeys } from '../helpers/server-stores.js';
import { collectingLogger, rejectionOf } from '../ledger/ledger-helpers.js';

const shared = await probeRedis();
const skip = integrationSkip(
  (await hasRedisServer()) ? shared : { ...shared, available: false, reason: '`redis-server` is not installed' },
);
const runPrefix = `hyphae-test:${randomUUID()}:`;

type Client = RedisClientKind;
const closers: (() => Promise<void> | void)[] = [];

function storageOn(url: string, client: Client, settings: RedisStorageSettings): LedgerStorage {
  const storage = redisStorageOn(url, client, settings);
  closers.push(() => storage.close());
  return storage;
}

/** A payment tool whose body runs `during` inside its side effect, counting the effects. */
function paymentOn(storage: LedgerStorage, during: () => Promise<void>) {
  const logger = collectingLogger();
  const ledger = createLedger({ storage, agentId: 'a', policyVersion: '1', logger, leaseTtlMs: 60_000 });
  closers.push(() => ledger.close());
  let effects = 0;
  const pay = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async () =>
    sideEffect(async () => {
      effects += 1;
      await during();
      return 'paid';
    }),
  );
  return { pay, logger, effects: () => effects };
}

describe.skipIf(skip)('redis: records lost under the ledger', () => {
  let own: OwnRedis;
  let admin: ReturnType<typeof createClient>;

  beforeAll(async () => {
    own = await startOwnRedis();
    admin = createClient({ url: REDIS_URL });
    admin.on('error', () => {});
    await admin.connect();
  });

  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
    await own?.stop();
    await deleteRedisKeys(REDIS_URL, runPrefix);
    await admin?.close();
  });

  for (const client of ['node-redis', 'ioredis'] as const) {
    describe(client, () => {
      it('a server restarted empty inside `sideEffect`: the caller gets its result, the redispatch is refused', async () => {
        const storage = storageOn(own.url, client, { prefix: `restart-${client}:` });
        const { pay, logger, effects } = paymentOn(storage, () => own.restartEmpty());

        const result = await pay({ amount: 5 }, { toolCallId: 'call-1' });
        const redispatch = await rejectionOf(pay({ amount: 5 }, { toolCallId: 'call-1' }));

        expect(result).toBe('paid');
        expect(logger.entries).toContainEqual({ level: 'error', message: 'Completion could not be recorded' });
        expect(redispatch).toBeInstanceOf(LedgerStorageCorruptError);
        expect((redispatch as Error).message).toMatch(/ledger marker no longer holds/);
        expect(effects()).toBe(1);
      });

      it('a server paused inside `sideEffect`: the completion waits for it, the redispatch returns the result', async () => {
        const storage = storageOn(own.url, client, { prefix: `pause-${client}:` });
        const { pay, effects } = paymentOn(storage, () => own.pause(300));

        const result = await pay({ amount: 5 }, { toolCallId: 'call-1' });
        const redispatch = await pay({ amount: 5 }, { toolCallId: 'call-1' });

        expect(result).toBe('paid');
        expect(redispatch).toBe('paid');
        expect(effects()).toBe(1);
      });

      it('a record deleted inside `sideEffect`: the result, not `LedgerFencedError`; the redispatch is refused', async () => {
        const prefix = `${runPrefix}deleted-${client}:`;
        const storage = storageOn(REDIS_URL, client, { prefix });
        const { pay, logger, effects } = paymentOn(storage, async () => {
          const keys = await admin.keys(`${prefix}rec:*`);
          await admin.del(keys);
        });

        const result = await pay({ amount: 5 }, { toolCallId: 'call-1' });
        const redispatch = await rejectionOf(pay({ amount: 5 }, { toolCallId: 'call-1' }));

        expect(result).toBe('paid');
        expect(logger.entries).toContainEqual({ level: 'error', message: 'Completion could not be recorded' });
        expect(redispatch).toBeInstanceOf(LedgerStorageCorruptError);
        expect((redispatch as Error).message).toMatch(/ticket index names a record that is gone/);
        expect(effects()).toBe(1);
      });
    });
  }

  describe('driver', () => {
    it('never claims again a ticket whose record is gone (an evicted record)', async () => {
      const prefix = `${runPrefix}orphan:`;
      const storage = createRedisStorage({ url: REDIS_URL }, { prefix });
      closers.push(() => storage.close());
      const first = makeTestRecord({ key: 'k1', ticketKey: 't1', outcome: 'COMPLETED' });
      await storage.create(first);
      await admin.del(`${prefix}rec:k1`);

      const again = await rejectionOf(storage.create(makeTestRecord({ key: 'k1', ticketKey: 't1' })));
      const other = await rejectionOf(storage.create(makeTestRecord({ key: 'k2', ticketKey: 't1' })));
      const found = await rejectionOf(storage.findByTicket('t1'));

      for (const error of [again, other, found]) expect(error).toBeInstanceOf(LedgerStorageCorruptError);
      expect(await admin.exists([`${prefix}rec:k1`, `${prefix}rec:k2`])).toBe(0);
    });

    it('refuses every write once the ledger marker is gone, and does not write a new one', async () => {
      const prefix = `${runPrefix}marker:`;
      const storage = createRedisStorage({ url: REDIS_URL }, { prefix });
      closers.push(() => storage.close());
      const { ledgerId } = await storage.identity();
      await storage.create(makeTestRecord({ key: 'k1' }));
      await admin.del(`${prefix}ledger`);

      const create = await rejectionOf(storage.create(makeTestRecord({ key: 'k2' })));
      const update = await rejectionOf(storage.update('k1', 1, makeTestRecord({ key: 'k1', version: 2 })));
      // Meeting a record writes nothing: it is a read, like `get`, and answers without the marker.
      const met = await storage.create(makeTestRecord({ key: 'k1', outcome: 'COMPLETED' }));

      expect(create).toBeInstanceOf(LedgerStorageCorruptError);
      expect(update).toBeInstanceOf(LedgerStorageCorruptError);
      expect((create as Error).message).toContain(ledgerId);
      expect(met.created).toBe(false);
      expect(met.record).toMatchObject({ key: 'k1', version: 1, outcome: 'IN_FLIGHT' });
      expect(await admin.exists([`${prefix}ledger`, `${prefix}rec:k2`])).toBe(0);
    });

    it('`create: false` refuses a store that holds no ledger, and opens one that does', async () => {
      const prefix = `${runPrefix}existing:`;
      const existing = createRedisStorage({ url: REDIS_URL }, { prefix, create: false });
      const creator = createRedisStorage({ url: REDIS_URL }, { prefix });
      closers.push(
        () => existing.close(),
        () => creator.close(),
      );

      const refused = await rejectionOf(existing.create(makeTestRecord({ key: 'k1' })));
      const created = await creator.identity();
      const reopened = createRedisStorage({ url: REDIS_URL }, { prefix, create: false });
      closers.push(() => reopened.close());

      expect(refused).toBeInstanceOf(LedgerStorageCorruptError);
      expect((refused as Error).message).toMatch(/holds no ledger.*`create: false`/);
      expect(await reopened.identity()).toEqual(created);
      expect((await reopened.create(makeTestRecord({ key: 'k1' }))).created).toBe(true);
    });

    it('`create: false` names a store with records but no marker (an older hyphae) apart from an empty one', async () => {
      const prefix = `${runPrefix}premarker:`;
      const writer = createRedisStorage({ url: REDIS_URL }, { prefix });
      closers.push(() => writer.close());
      await writer.create(makeTestRecord({ key: 'k1' }));
      await admin.del(`${prefix}ledger`);
      const strict = createRedisStorage({ url: REDIS_URL }, { prefix, create: false });
      closers.push(() => strict.close());

      const refused = await rejectionOf(strict.identity());

      expect(refused).toBeInstanceOf(LedgerStorageCorruptError);
      expect((refused as Error).message).toMatch(/holds records but no ledger marker.*hyphae init --stores/);
    });

    it('`create: false` refuses a server restarted empty, where a new storage would start a new ledger', async () => {
      const prefix = 'reopen:';
      const before = createRedisStorage({ url: own.url }, { prefix });
      closers.push(() => before.close());
      await before.identity();
      await own.restartEmpty();
      const after = createRedisStorage({ url: own.url }, { prefix, create: false });
      closers.push(() => after.close());

      expect(await rejectionOf(after.identity())).toBeInstanceOf(LedgerStorageCorruptError);
    });
  });
});
