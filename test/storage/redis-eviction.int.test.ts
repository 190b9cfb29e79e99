/**
 * An evicting `maxmemory-policy` drops completed records silently, so the Redis driver reads the
 * policy when it connects and the ledger refuses side-effecting calls on it unless accepted; on a
 * server of this file's own, never the shared one.
 */
import { createClient } from 'redis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardPipeline } from '../../src/adapters/pipeline.js';
import { LedgerStorageUnavailableError, LedgerStorageUnsafeError } from '../../src/errors.js';
import { createLedger } from '../../src/ledger/create-ledger.js';
import type { LedgerStorage } from '../../src/storage/ledger-storage.js';
import { createRedisStorage, type RedisStorageSettings } from '../../src/storage/redis.js';
import { integrationSkip } from '../helpers/integration.js';
import { type RedisClientKind, redisStorageOn } from '../helpers/ioredis-storage.js';
import { hasRedisServer, type OwnRedis, startOwnRedis } from '../helpers/own-redis.js';
import { collectingLogger, rejectionOf } from '../ledger/ledger-helpers.js';

const skip = integrationSkip(
  (await hasRedisServer())
    ? { server: 'redis-server', address: 'local binary', available: true, reason: null }
    : { server: 'redis-server', address: 'local binary', available: false, reason: '`redis-server` is not installed' },
);

const EVICTING = ['--maxmemory', '3mb', '--maxmemory-policy', 'allkeys-lru'];

type Client = RedisClientKind;
const closers: (() => Promise<void> | void)[] = [];

function storageOn(url: string, client: Client, settings: RedisStorageSettings): LedgerStorage {
  const storage = redisStorageOn(url, client, settings);
  closers.push(() => storage.close());
  return storage;
}

function ledgerOn(storage: LedgerStorage) {
  const logger = collectingLogger();
  const ledger = createLedger({ storage, agentId: 'a', policyVersion: '1', logger });
  closers.push(() => ledger.close());
  let runs = 0;
  const pay = ledger.tool({ name: 'pay', sideEffectClass: 'non_idempotent_mutate' }, async () => {
    runs += 1;
    return 'paid';
  });
  const lookup = ledger.tool({ name: 'lookup', sideEffectClass: 'read' }, async () => {
    runs += 1;
    return 'found';
  });
  return { pay, lookup, logger, runs: () => runs };
}

describe.skipIf(skip)('redis: maxmemory-policy', () => {
  let evicting: OwnRedis;
  let unreadable: OwnRedis;
  let safe: OwnRedis;

  beforeAll(async () => {
    [evicting, unreadable, safe] = await Promise.all([
      startOwnRedis(EVICTING),
      startOwnRedis([...EVICTING, '--rename-command', 'CONFIG', '']),
      startOwnRedis(['--maxmemory', '3mb', '--maxmemory-policy', 'noeviction']),
    ]);
  });

  afterAll(async () => {
    for (const close of closers.splice(0)) await close();
    await Promise.all([evicting?.stop(), unreadable?.stop(), safe?.stop()]);
  });

  for (const client of ['node-redis', 'ioredis'] as const) {
    describe(client, () => {
      it('reports an evicting policy as a hazard when it connects', async () => {
        const storage = storageOn(evicting.url, client, { prefix: 'p:' });

        const hazards = await storage.hazards?.();

        expect(hazards).toEqual([expect.objectContaining({ code: 'evicting_maxmemory_policy', accepted: false })]);
        expect(hazards?.[0]?.message).toMatch(/`allkeys-lru`.*noeviction.*allowEviction/);
      });

      it('refuses a side-effecting tool on an evicting server before it claims, and runs nothing', async () => {
        const { pay, runs } = ledgerOn(storageOn(evicting.url, client, { prefix: 'refuse:' }));

        const error = await rejectionOf(pay({}, { toolCallId: 'c1' }));

        expect(error).toBeInstanceOf(LedgerStorageUnsafeError);
        expect(error).toMatchObject({ code: 'ledger_storage_unsafe', hazard: 'evicting_maxmemory_policy' });
        expect(runs()).toBe(0);
      });

      it('runs a read tool on an evicting server and warns once through the logger', async () => {
        const { lookup, logger } = ledgerOn(storageOn(evicting.url, client, { prefix: 'read:' }));

        expect(await lookup({ id: 1 }, { toolCallId: 'r1' })).toBe('found');
        expect(await lookup({ id: 2 }, { toolCallId: 'r2' })).toBe('found');

        const warnings = logger.entries.filter((entry) => entry.level === 'warn');
        expect(warnings).toHaveLength(1);
        expect(warnings[0]?.message).toMatch(/may lose records.*allkeys-lru/);
      });

      it('runs a side-effecting tool with a warning when `allowEviction` accepts the policy', async () => {
        const { pay, logger } = ledgerOn(storageOn(evicting.url, client, { prefix: 'opt:', allowEviction: true }));

        expect(await pay({}, { toolCallId: 'c1' })).toBe('paid');
        expect(logger.entries.filter((entry) => entry.level === 'warn')).toHaveLength(1);
      });

      it('treats a policy it cannot read (CONFIG renamed away) as unknown, and refuses side effects', async () => {
        const storage = storageOn(unreadable.url, client, { prefix: 'unknown:' });
        const { pay, runs } = ledgerOn(storage);

        const error = await rejectionOf(pay({}, { toolCallId: 'c1' }));

        expect(error).toMatchObject({ code: 'ledger_storage_unsafe', hazard: 'maxmemory_policy_unknown' });
        expect((error as Error).message).toMatch(/could not be read \(`CONFIG GET` was refused/);
        expect(runs()).toBe(0);
      });

      it('finds no hazard on a `noeviction` server', async () => {
        const storage = storageOn(safe.url, client, { prefix: 'safe:' });
        const { pay } = ledgerOn(storage);

        expect(await storage.hazards?.()).toEqual([]);
        expect(await pay({}, { toolCallId: 'c1' })).toBe('paid');
      });
    });
  }

  it('an adapter refuses the call with a well-formed result and stops the run', async () => {
    const ledger = createLedger({
      storage: createRedisStorage({ url: evicting.url }, { prefix: 'adapter:' }),
      agentId: 'a',
      policyVersion: '1',
      logger: collectingLogger(),
    });
    closers.push(() => ledger.close());
    const run = createGuardPipeline({ ledger, tools: { pay: { sideEffectClass: 'payment' } } }).forRun({ runId: 'r1' });
    let runs = 0;

    const outcome = await run.executeToolCall({ id: 'call_1', name: 'pay', args: {} }, async () => {
      runs += 1;
      return 'paid';
    });

    expect(outcome).toMatchObject({ status: 'refused', code: 'ledger_storage_unsafe', terminal: true });
    expect(runs).toBe(0);
  });

  it('reads the policy from a RESP3 reply too', async () => {
    const resp3 = await createClient({ url: evicting.url, RESP: 3 }).connect();
    closers.push(() => resp3.close());
    const storage = createRedisStorage({ client: resp3 }, { prefix: 'resp3:' });

    expect(await storage.hazards()).toEqual([expect.objectContaining({ code: 'evicting_maxmemory_policy' })]);
  });

  it('checks the policy again when a reply was cut short, instead of refusing the store for good', async () => {
    const real = await createClient({ url: evicting.url }).connect();
    closers.push(() => real.close());
    let cut = true;
    // The connection's first CONFIG GET answers with no reply at all, as one broken mid-reply does.
    const client = new Proxy(real, {
      get(target, property, receiver) {
        if (property !== 'sendCommand') return Reflect.get(target, property, receiver);
        return async (args: string[]) => {
          if (cut && args[0] === 'CONFIG') {
            cut = false;
            return null;
          }
          return target.sendCommand(args);
        };
      },
    });
    const storage = createRedisStorage({ client }, { prefix: 'cut:' });

    await expect(storage.hazards()).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
    expect(await storage.hazards()).toEqual([expect.objectContaining({ code: 'evicting_maxmemory_policy' })]);
  });
});
