import { randomUUID } from 'node:crypto';
import { createClient } from 'redis';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, expectTypeOf, it } from 'vitest';
import { GuardError, LedgerStorageCorruptError, LedgerStorageUnavailableError } from '../../src/errors.js';
import { loadRedis, ownedConnection, type RedisModuleLike } from '../../src/storage/redis/connection.js';
import { createRedisStorage, type RedisClientLike, type RedisStorage } from '../../src/storage/redis.js';
import { describeStorageConformance, makeTestRecord } from '../../src/testing/storage-conformance.js';
import { killClientsNamed } from '../helpers/chaos-targets.js';
import {
  inListOrder,
  integrationSkip,
  listAll,
  probeRedis,
  REDIS_URL,
  type ServerProbe,
} from '../helpers/integration.js';
import { eventually, expectWatchLifecycle } from '../helpers/redis-watch.js';

const skip = integrationSkip(await probeRedis());
// One prefix per run of this file: parallel runs and other files never see each other's keys.
const runPrefix = `hyphae-test:${randomUUID()}:`;
const T = 1_767_225_600_000;

type AdminClient = ReturnType<typeof createClient>;
const createResp3Client = () => createClient({ url: REDIS_URL, RESP: 3 });
let admin: AdminClient;

async function deleteKeys(pattern: string): Promise<void> {
  for await (const keys of admin.scanIterator({ MATCH: pattern, COUNT: 1000 })) {
    if (keys.length > 0) await admin.unlink(keys);
  }
}

describe.skipIf(skip)('redis storage', () => {
  beforeAll(async () => {
    admin = createClient({ url: REDIS_URL });
    admin.on('error', () => {});
    await admin.connect();
  });

  afterAll(async () => {
    await deleteKeys(`${runPrefix}*`);
    await admin.close();
  });

  describeStorageConformance({
    name: 'redis',
    open: () => createRedisStorage({ url: REDIS_URL }, { prefix: `${runPrefix}conformance:` }),
    api: { describe, it },
    watch: true,
    identity: true,
  });

  describe('driver', () => {
    let prefix: string;
    const opened: RedisStorage[] = [];
    const open = (): RedisStorage => {
      const storage = createRedisStorage({ url: REDIS_URL }, { prefix });
      opened.push(storage);
      return storage;
    };

    beforeEach(() => {
      prefix = `${runPrefix}${randomUUID()}:`;
    });

    afterEach(async () => {
      await Promise.all(opened.splice(0).map((storage) => storage.close()));
    });

    it('takes a node-redis v5 client, RESP2 or RESP3, with no cast', () => {
      expectTypeOf<ReturnType<typeof createClient>>().toExtend<RedisClientLike>();
      expectTypeOf<ReturnType<typeof createResp3Client>>().toExtend<RedisClientLike>();
    });

    it('declares its capabilities and prefix', () => {
      const storage = createRedisStorage({ url: REDIS_URL });
      expect(storage.capabilities).toEqual({ name: 'redis', crossProcess: true, durable: true });
      expect(storage.prefix).toBe('hyphae:');
    });

    it('reloads its scripts after SCRIPT FLUSH (NOSCRIPT fallback)', async () => {
      const storage = open();
      const record = makeTestRecord();
      expect((await storage.create(record)).created).toBe(true);
      await admin.sendCommand(['SCRIPT', 'FLUSH']);
      expect(await storage.update(record.key, 1, { ...record, version: 2 })).toBe(true);
      await admin.sendCommand(['SCRIPT', 'FLUSH']);
      expect((await storage.create(makeTestRecord())).created).toBe(true);
      await admin.sendCommand(['SCRIPT', 'FLUSH']);
      expect((await storage.findByTicket(record.ticketKey ?? ''))?.version).toBe(2);
      await admin.sendCommand(['SCRIPT', 'FLUSH']);
      expect((await storage.list({ limit: 10 })).records).toHaveLength(2);
    });

    it('never closes a client it was given', async () => {
      const client = createClient({ url: REDIS_URL });
      client.on('error', () => {});
      await client.connect();
      try {
        const storage = createRedisStorage({ client }, { prefix });
        await storage.create(makeTestRecord());
        await storage.close();
        await storage.close();
        expect(client.isOpen).toBe(true);
        expect(await client.sendCommand(['PING'])).toBe('PONG');
        await expect(storage.get('any')).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
      } finally {
        await client.close();
      }
    });

    it('closes the client it created, once', async () => {
      const created: { isOpen: boolean }[] = [];
      const { createClient: realCreateClient } = await import('redis');
      const spying: RedisModuleLike = {
        createClient(options) {
          const client = realCreateClient(options);
          created.push(client);
          return client;
        },
      };
      const connection = ownedConnection(REDIS_URL, async () => spying);
      const [a, b] = await Promise.all([connection.client('get'), connection.client('get')]);
      expect(a).toBe(b);
      expect(created).toHaveLength(1);
      expect(created[0]?.isOpen).toBe(true);
      await connection.close();
      await connection.close();
      expect(created[0]?.isOpen).toBe(false);
      await expect(connection.client('get')).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
    });

    it('works through a RESP3 client', async () => {
      const client = createResp3Client();
      client.on('error', () => {});
      await client.connect();
      try {
        const storage = createRedisStorage({ client }, { prefix });
        const record = makeTestRecord();
        expect(await storage.create(record)).toEqual({ created: true, record });
        expect(await storage.create(record)).toEqual({ created: false, conflict: 'key', record });
        expect(await storage.findByTicket('unknown')).toBeNull();
        expect(await storage.get('unknown')).toBeNull();
        expect(await storage.update(record.key, 1, { ...record, version: 2, ticketKey: null })).toBe(true);
        expect((await storage.findByTicket(record.ticketKey ?? ''))?.ticketKey).toBe(record.ticketKey);
        expect((await storage.list({ tool: record.tool, limit: 5 })).records.map((r) => r.key)).toContain(record.key);
      } finally {
        await client.close();
      }
    });

    it('fails closed on a stored document that is not a record', async () => {
      const storage = open();
      const record = makeTestRecord({ tool: `corrupt_${randomUUID()}` });
      await storage.create(record);
      await admin.hSet(`${prefix}rec:${record.key}`, 'doc', '{"key": truncated');
      await expect(storage.get(record.key)).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      await expect(storage.findByTicket(record.ticketKey ?? '')).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      await expect(storage.list({ tool: record.tool })).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      await expect(storage.create(record)).rejects.toBeInstanceOf(LedgerStorageCorruptError);
    });

    it('fails closed on a key of the wrong type and on an index entry without a record', async () => {
      const storage = open();
      const record = makeTestRecord();
      await admin.set(`${prefix}rec:${record.key}`, 'a string, not a hash');
      await expect(storage.get(record.key)).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      await expect(storage.create(record)).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      await admin.del(`${prefix}rec:${record.key}`);
      await admin.zAdd(`${prefix}updated`, { score: 5, value: 'ghost' });
      await expect(storage.list()).rejects.toThrow(/has no record/);
    });

    it('reports an unreachable server as unavailable', async () => {
      const storage = createRedisStorage({ url: 'redis://127.0.0.1:1' }, { prefix });
      const error = await storage.get('any').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LedgerStorageUnavailableError);
      expect((error as LedgerStorageUnavailableError).operation).toBe('get');
      expect((error as Error).cause).toBeInstanceOf(Error);
      await expect(storage.create(makeTestRecord())).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
      await storage.close();
    });

    it('reports a failing passed client as unavailable', async () => {
      const broken: RedisClientLike = { sendCommand: () => Promise.reject(new Error('socket hang up')) };
      const storage = createRedisStorage({ client: broken }, { prefix });
      await expect(storage.create(makeTestRecord())).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
      await expect(storage.list()).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
    });

    it('names `redis` when the package cannot be loaded', async () => {
      const missing = Object.assign(new Error("Cannot find package 'redis'"), { code: 'ERR_MODULE_NOT_FOUND' });
      const error = await loadRedis(() => Promise.reject(missing)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(GuardError);
      expect((error as GuardError).code).toBe('missing_peer_dependency');
      expect((error as Error).message).toContain('`redis`');
      expect((error as Error).message).toContain('is not installed');
      expect((error as Error).cause).toBe(missing);
    });

    it('refuses a bad limit or cursor before touching the server', async () => {
      const storage = createRedisStorage({ url: 'redis://127.0.0.1:1' }, { prefix });
      await expect(storage.list({ limit: 0 })).rejects.toBeInstanceOf(RangeError);
      await expect(storage.list({ cursor: '%%%' })).rejects.toBeInstanceOf(RangeError);
      await storage.close();
    });
  });

  describe('change notices (watch)', () => {
    let prefix: string;
    const cleanups: (() => Promise<unknown>)[] = [];
    beforeEach(() => {
      prefix = `${runPrefix}${randomUUID()}:`;
    });
    afterEach(async () => {
      for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
    });

    async function connected(): Promise<AdminClient> {
      const client = createClient({ url: REDIS_URL });
      client.on('error', () => {});
      await client.connect();
      cleanups.push(() => (client.isOpen ? client.close() : Promise.resolve()));
      return client;
    }

    /** Subscribers of the channel of a record key under `prefix`. */
    async function subscribers(key: string): Promise<number> {
      const reply = (await admin.sendCommand(['PUBSUB', 'NUMSUB', `${prefix}rec:${key}`])) as [string, number];
      return Number(reply[1]);
    }

    it('subscribes through a duplicate of a client it was given, and closes only the duplicate', async () => {
      const client = await connected();
      const storage = createRedisStorage({ client }, { prefix });
      const writer = createRedisStorage({ client: await connected() }, { prefix });
      await expectWatchLifecycle(storage, writer, subscribers);
      expect(client.isOpen).toBe(true);
      expect(await client.sendCommand(['PING'])).toBe('PONG');
    });

    it('hears updates again after its subscriber connection is killed', async () => {
      // A named client: its subscriber is a duplicate with the same name, so only it is killed.
      const name = `hyphae-watch-${randomUUID().slice(0, 8)}`;
      const named = createClient({ url: REDIS_URL, name });
      named.on('error', () => {});
      await named.connect();
      cleanups.push(() => (named.isOpen ? named.close() : Promise.resolve()));
      const storage = createRedisStorage({ client: named }, { prefix });
      cleanups.push(() => storage.close());
      const writer = createRedisStorage({ client: await connected() }, { prefix });
      const [before, after] = [makeTestRecord(), makeTestRecord()];
      await writer.create(before);
      await writer.create(after);
      let first = 0;
      storage.watch(before.key, () => {
        first += 1;
      });
      await eventually(() => first === 1, 'the first watch to be live');

      expect(await killClientsNamed(admin, name, 'pubsub')).toBe(1);
      let second = 0;
      storage.watch(after.key, () => {
        second += 1;
      });
      // Reconnected (or replaced): the new watch goes live and hears the next update.
      await eventually(() => second >= 1, 'the second watch to be live');
      const heard = second;
      await eventually(async () => {
        const current = await writer.get(after.key);
        if (current === null) throw new Error('record vanished');
        await writer.update(after.key, current.version, { ...current, version: current.version + 1 });
        return second > heard;
      }, 'the update to be heard');
    });

    it('a client without duplicate() gets no notices and the ledger still polls to the result', async () => {
      const client = await connected();
      const bare: RedisClientLike = { sendCommand: (args) => client.sendCommand(args) };
      const storage = createRedisStorage({ client: bare }, { prefix });
      const record = makeTestRecord();
      await storage.create(record);
      const stop = storage.watch(record.key, () => {
        throw new Error('no notice was expected');
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(await subscribers(record.key)).toBe(0);
      stop();
      await storage.close();
    });

    it('a redispatch on another client returns when the owner completes, without waiting out its poll', async () => {
      const { createLedger, createManualClock } = await import('../../src/index.js');
      // A clock that never moves: the poller can only return because a notice woke it.
      const clock = createManualClock(T);
      const options = { agentId: 'agent', policyVersion: 'p1', clock, pollIntervalMs: 60_000, leaseTtlMs: 600_000 };
      const ownerStorage = createRedisStorage({ client: await connected() }, { prefix });
      const otherStorage = createRedisStorage({ client: await connected() }, { prefix });
      cleanups.push(
        () => ownerStorage.close(),
        () => otherStorage.close(),
      );
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let runs = 0;
      const spec = { name: 'build_report', sideEffectClass: 'idempotent_mutate' } as const;
      const owner = createLedger({ storage: ownerStorage, ...options }).tool(spec, async (args: { id: string }) => {
        runs += 1;
        await held;
        return { id: args.id, pages: 3 };
      });
      const other = createLedger({ storage: otherStorage, ...options }).tool(spec, async () => {
        runs += 1;
        return 'ran twice';
      });

      const first = owner({ id: 'r1' }, { toolCallId: 'call_1' });
      await eventually(() => runs === 1, 'the owner to start');
      let settled = false;
      const second = other({ id: 'r1' }, { toolCallId: 'call_1' }).finally(() => {
        settled = true;
      });
      await eventually(() => clock.pending > 1, 'the redispatch to wait');
      const key = (await ownerStorage.list({ limit: 1 })).records[0]?.key ?? '';
      await eventually(async () => (await subscribers(key)) === 1, 'the poller to subscribe');
      expect(settled).toBe(false);

      release();
      const [a, b] = await Promise.all([first, second]);
      expect(b).toEqual(a);
      expect(runs).toBe(1);
      expect(clock.now()).toBe(T);
      await eventually(async () => (await subscribers(key)) === 0, 'the poller to unsubscribe');
    });
  });

  describe('list paging', () => {
    it('pages 250 records with a filter and returns every match exactly once', async () => {
      const storage = createRedisStorage({ url: REDIS_URL }, { prefix: `${runPrefix}paging:` });
      const [toolA, toolB] = [`paged_a_${randomUUID()}`, `paged_b_${randomUUID()}`];
      const outcomes = ['COMPLETED', 'UNKNOWN', 'IN_FLIGHT'] as const;
      const records = Array.from({ length: 250 }, (_, i) =>
        makeTestRecord({
          tool: i % 2 === 0 ? toolA : toolB,
          outcome: outcomes[i % 3] ?? 'COMPLETED',
          updatedAt: T + (i % 9),
        }),
      );
      await Promise.all(records.map((record) => storage.create(record)));
      const matching = records.filter((r) => r.tool === toolA && r.outcome === 'COMPLETED');

      for (const limit of [1, 7, 42, 1000]) {
        const { keys, pageSizes } = await listAll(storage, { tool: toolA, outcome: 'COMPLETED', limit });
        expect(keys).toEqual(inListOrder(matching));
        expect(new Set(keys).size).toBe(matching.length);
        expect(pageSizes.slice(0, -1).every((size) => size === limit)).toBe(true);
      }
      const { keys } = await listAll(storage, {
        tool: toolB,
        outcome: ['UNKNOWN', 'IN_FLIGHT'],
        kind: 'tool',
        limit: 9,
      });
      expect(keys).toEqual(inListOrder(records.filter((r) => r.tool === toolB && r.outcome !== 'COMPLETED')));
      await storage.close();
    });

    it('fills pages across sparse matches inside one long run of equal update times', async () => {
      // 2600 records share one update time and six match: each page needs several bounded
      // script calls, each resuming in the middle of the tie group.
      const storage = createRedisStorage({ url: REDIS_URL }, { prefix: `${runPrefix}sparse:` });
      const tool = `sparse_${randomUUID()}`;
      const records = Array.from({ length: 2600 }, (_, i) =>
        makeTestRecord({ tool, outcome: i % 500 === 7 ? 'UNKNOWN' : 'COMPLETED', updatedAt: T }),
      );
      for (let i = 0; i < records.length; i += 500) {
        await Promise.all(records.slice(i, i + 500).map((record) => storage.create(record)));
      }
      const sparse = await listAll(storage, { tool, outcome: 'UNKNOWN', limit: 2 });
      expect(sparse.keys).toEqual(inListOrder(records.filter((r) => r.outcome === 'UNKNOWN')));
      expect(sparse.pageSizes).toEqual([2, 2, 2]);
      const dense = await listAll(storage, { tool, limit: 1000 });
      expect(dense.keys).toEqual(inListOrder(records));
      await storage.close();
    });
  });
});

describe('integration gate', () => {
  const silent: ServerProbe = { server: 'Redis', address: '127.0.0.1:1', available: false, reason: 'refused' };

  it('skips a silent server, or fails naming it when integration is required', () => {
    expect(integrationSkip(silent, {})).toBe(true);
    expect(() => integrationSkip(silent, { REQUIRE_INTEGRATION: '1' })).toThrow(
      /^Redis at `127.0.0.1:1` did not answer/,
    );
    expect(integrationSkip({ ...silent, available: true, reason: null }, { REQUIRE_INTEGRATION: '1' })).toBe(false);
  });

  it('probes a closed port as unavailable', async () => {
    const probe = await probeRedis('redis://127.0.0.1:1', 1000);
    expect(probe).toMatchObject({ server: 'Redis', address: '127.0.0.1:1', available: false });
  });
});
