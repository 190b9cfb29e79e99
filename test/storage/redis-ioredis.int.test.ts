/**
 * The Redis driver over ioredis clients (`fromIoredis`), on the real server: the storage conformance
 * suite with change notices, script reloads, the notice subscriber on a duplicate, a redispatch woken
 * across clients, and prompt failure when the server is gone.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { LedgerStorageUnavailableError } from '../../src/errors.js';
import { createLedger, createManualClock } from '../../src/index.js';
import { createRedisStorage, fromIoredis, type IoredisLike, type RedisStorage } from '../../src/storage/redis.js';
import { describeStorageConformance, makeTestRecord } from '../../src/testing/storage-conformance.js';
import { killClientsNamed } from '../helpers/chaos-targets.js';
import { integrationSkip, probeRedis, REDIS_URL } from '../helpers/integration.js';
import { eventually, expectWatchLifecycle } from '../helpers/redis-watch.js';
import { deleteRedisKeys } from '../helpers/server-stores.js';

const skip = integrationSkip(await probeRedis());
const runPrefix = `hyphae-test:ioredis:${randomUUID()}:`;
const T = 1_767_225_600_000;

/** Every ioredis client this file opens, ended after the file. */
const clients: Redis[] = [];
function ioredis(
  options: { maxRetriesPerRequest?: number; enableOfflineQueue?: boolean; connectionName?: string } = {},
): Redis {
  const client = new Redis(REDIS_URL, { maxRetriesPerRequest: 1, ...options });
  client.on('error', () => {});
  clients.push(client);
  return client;
}

describe.skipIf(skip)('redis storage over ioredis', () => {
  let admin: Redis;

  beforeAll(() => {
    admin = ioredis();
  });

  afterAll(async () => {
    await deleteRedisKeys(REDIS_URL, runPrefix);
    for (const client of clients.splice(0)) client.disconnect();
  });

  it('takes an ioredis client through fromIoredis, with no cast', () => {
    expectTypeOf<Redis>().toExtend<IoredisLike>();
  });

  describeStorageConformance({
    name: 'redis (ioredis)',
    open: () => createRedisStorage({ client: fromIoredis(ioredis()) }, { prefix: `${runPrefix}conformance:` }),
    api: { describe, it },
    watch: true,
    identity: true,
  });

  describe('driver', () => {
    let prefix: string;
    const opened: RedisStorage[] = [];
    const open = (client: Redis = ioredis()): RedisStorage => {
      const storage = createRedisStorage({ client: fromIoredis(client) }, { prefix });
      opened.push(storage);
      return storage;
    };
    /** Subscribers of the channel of a record key under `prefix`. */
    const subscribers = async (key: string): Promise<number> =>
      Number(((await admin.call('PUBSUB', ['NUMSUB', `${prefix}rec:${key}`])) as [string, number])[1]);

    beforeEach(() => {
      prefix = `${runPrefix}${randomUUID()}:`;
    });

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((storage) => storage.close()));
    });

    it('reloads its scripts after SCRIPT FLUSH (NOSCRIPT fallback)', async () => {
      const storage = open();
      const [first, second] = [makeTestRecord(), makeTestRecord()];
      expect((await storage.create(first)).created).toBe(true);
      await admin.call('SCRIPT', ['FLUSH']);
      expect((await storage.create(second)).created).toBe(true);
      await admin.call('SCRIPT', ['FLUSH']);
      expect(await storage.update(first.key, 1, { ...first, version: 2, outcome: 'COMPLETED' })).toBe(true);
      expect(await storage.get(first.key)).toMatchObject({ version: 2, outcome: 'COMPLETED' });
    });

    it('subscribes through a duplicate of the client, hears updates, and closes only the duplicate', async () => {
      const client = ioredis();
      const storage = open(client);
      await expectWatchLifecycle(storage, open(), subscribers);
      expect(client.status).toBe('ready');
      expect(await client.ping()).toBe('PONG');
    });

    it('hears updates again after its subscriber connection is killed (ioredis resubscribes)', async () => {
      // A named client: its subscriber is a duplicate with the same name, so only it is killed.
      const name = `hyphae-watch-${randomUUID().slice(0, 8)}`;
      const storage = open(ioredis({ connectionName: name }));
      const writer = open();
      const record = makeTestRecord();
      await writer.create(record);
      let notices = 0;
      storage.watch(record.key, () => {
        notices += 1;
      });
      await eventually(() => notices === 1, 'the watch to be live');
      const killed = await killClientsNamed(
        { sendCommand: (args) => admin.call(args[0] as string, args.slice(1)) },
        name,
        'pubsub',
      );
      expect(killed).toBe(1);
      await eventually(async () => (await subscribers(record.key)) === 1, 'the resubscription');
      const heard = notices;
      await eventually(async () => {
        const current = await writer.get(record.key);
        if (current === null) throw new Error('record vanished');
        await writer.update(record.key, current.version, { ...current, version: current.version + 1 });
        return notices > heard;
      }, 'an update to be heard');
    });

    it('a redispatch on another ioredis client returns when the owner completes, on a clock that never moves', async () => {
      const clock = createManualClock(T);
      const options = { agentId: 'agent', policyVersion: 'p1', clock, pollIntervalMs: 60_000, leaseTtlMs: 600_000 };
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let runs = 0;
      const spec = { name: 'build_report', sideEffectClass: 'idempotent_mutate' } as const;
      const owner = createLedger({ storage: open(), ...options }).tool(spec, async (args: { id: string }) => {
        runs += 1;
        await held;
        return { id: args.id, pages: 3 };
      });
      const other = createLedger({ storage: open(), ...options }).tool(spec, async () => {
        runs += 1;
        return 'ran twice';
      });

      const first = owner({ id: 'r1' }, { toolCallId: 'call_1' });
      await eventually(() => runs === 1, 'the owner to start');
      const second = other({ id: 'r1' }, { toolCallId: 'call_1' });
      await eventually(() => clock.pending > 1, 'the redispatch to wait');
      release();
      const [a, b] = await Promise.all([first, second]);
      expect(b).toEqual(a);
      expect(runs).toBe(1);
      expect(clock.now()).toBe(T);
    });

    it('reports a server that is gone as unavailable, and the tool does not run', async () => {
      const client = new Redis({ host: '127.0.0.1', port: 1, lazyConnect: true, enableOfflineQueue: false });
      client.on('error', () => {});
      clients.push(client);
      await client.connect().catch(() => undefined);
      const storage = open(client);
      await expect(storage.create(makeTestRecord())).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
      let runs = 0;
      const tool = createLedger({ storage, agentId: 'agent', policyVersion: 'p1' }).tool(
        { name: 'charge', sideEffectClass: 'non_idempotent_mutate' },
        async () => {
          runs += 1;
        },
      );
      await expect(tool({}, { toolCallId: 'call_down' })).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
      expect(runs).toBe(0);
    });
  });
});
