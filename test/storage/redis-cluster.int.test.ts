/**
 * The Redis driver on a Redis Cluster of the file's own (three masters with a replica each, ports
 * 7101–7106), over node-redis (`createCluster`) and ioredis (`Cluster` through `fromIoredis`): the
 * storage conformance suite, then what the cluster layout adds — records spread over every master,
 * `list` merged across the buckets, a bucket's marker copy that vanishes, every master's
 * `maxmemory-policy`, the single-slot layout of a hash-tagged prefix.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Cluster } from 'ioredis';
import { createClient, type createCluster } from 'redis';
import { afterAll, afterEach, beforeEach, describe, expect, expectTypeOf, it, vi } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { InvalidOptionError, LedgerStorageCorruptError, LedgerStorageUnavailableError } from '../../src/errors.js';
import type { TransitionRecord } from '../../src/records/transition-record.js';
import { BUCKET_TAGS, bucketOf, keySlot } from '../../src/storage/redis/cluster.js';
import { ownedClusterConnection } from '../../src/storage/redis/owned-cluster.js';
import {
  createRedisStorage,
  type IoredisClusterLike,
  type RedisClusterLike,
  type RedisStorage,
} from '../../src/storage/redis.js';
import { describeStorageConformance, makeTestRecord } from '../../src/testing/storage-conformance.js';
import { hyphae } from '../config/cli-runner.js';
import { useTempDir, yaml } from '../config/helpers.js';
import { inListOrder, listAll } from '../helpers/integration.js';
import {
  type ClusterClientKind,
  deleteClusterKeys,
  type OwnCluster,
  openClusterStorage,
  ownClusterOrSkip,
} from '../helpers/redis-cluster.js';
import { eventually } from '../helpers/redis-watch.js';

const cluster = await ownClusterOrSkip(7101);
const runPrefix = `hyphae-test:cluster:${randomUUID()}:`;
const T = 1_767_225_600_000;

afterAll(async () => {
  await cluster?.stop();
});

/** A record in a scope of its own, so records spread over the buckets. */
const scoped = (overrides: Partial<TransitionRecord> = {}): TransitionRecord => {
  const runId = `run-${randomUUID()}`;
  return makeTestRecord({ scope: { threadId: 'thread-1', runId, node: 'tools' }, ...overrides });
};

/** Keys under `prefix` on each master, by port. */
async function keysPerMaster(own: OwnCluster, prefix: string): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (const node of own.nodes) {
    const client = createClient({ url: node.url });
    await client.connect();
    try {
      if (String(((await client.sendCommand(['ROLE'])) as unknown[])[0]) !== 'master') continue;
      let count = 0;
      for await (const keys of client.scanIterator({ MATCH: `${prefix}*`, COUNT: 1000 })) count += keys.length;
      counts.set(node.port, count);
    } finally {
      await client.close();
    }
  }
  return counts;
}

describe.skipIf(cluster === null)('redis storage on a cluster', () => {
  const own = cluster as OwnCluster;

  it('takes a node-redis cluster client and an ioredis Cluster, with no cast', () => {
    expectTypeOf<ReturnType<typeof createCluster>>().toExtend<RedisClusterLike>();
    expectTypeOf<Cluster>().toExtend<IoredisClusterLike>();
  });

  for (const kind of ['node-redis', 'ioredis'] as const satisfies readonly ClusterClientKind[]) {
    describeStorageConformance({
      name: `redis cluster (${kind})`,
      open: () => openClusterStorage(own, kind, { prefix: `${runPrefix}${kind}:conformance:` }),
      api: { describe, it },
      watch: true,
      identity: true,
    });

    describe(`cluster layout (${kind})`, () => {
      let prefix: string;
      const opened: RedisStorage[] = [];
      const open = async (settings: { create?: boolean; prefix?: string } = {}): Promise<RedisStorage> => {
        const storage = await openClusterStorage(own, kind, { prefix, ...settings });
        opened.push(storage);
        return storage;
      };

      beforeEach(() => {
        prefix = `${runPrefix}${kind}:${randomUUID()}:`;
      });

      afterEach(async () => {
        await Promise.all(opened.splice(0).map((storage) => storage.close()));
        await deleteClusterKeys(own, prefix);
      });

      it('spreads records of different scopes over every master, each found by key and by ticket', async () => {
        const storage = await open();
        const records = Array.from({ length: 60 }, () => scoped());
        for (const record of records) expect((await storage.create(record)).created).toBe(true);

        const counts = await keysPerMaster(own, prefix);
        expect(counts.size).toBe(3);
        for (const count of counts.values()) expect(count).toBeGreaterThan(0);
        expect(new Set(records.map(bucketOf)).size).toBeGreaterThan(20);
        const other = await open();
        for (const record of records) {
          expect(await other.get(record.key)).toEqual(record);
          expect(await other.findByTicket(record.ticketKey ?? '')).toEqual(record);
        }
      });

      it('sends its change notices to the shard of the record only, and a watcher on another client hears them', async () => {
        await expectShardedNotices(own, await open(), await open());
      });

      it('answers a ticket claimed under another scope with its holder', async () => {
        const storage = await open();
        const holder = scoped();
        let rival = scoped({ ticketKey: holder.ticketKey });
        while (bucketOf(rival) === bucketOf(holder)) rival = scoped({ ticketKey: holder.ticketKey });
        await storage.create(holder);

        expect(await storage.create(rival)).toEqual({ created: false, conflict: 'ticket', record: holder });
        expect(await storage.get(rival.key)).toBeNull();
      });

      it('keeps a record, its ticket index entry and its bucket marker in one slot', () => {
        const record = scoped();
        const tag = BUCKET_TAGS[bucketOf(record)] ?? '';
        const slots = ['rec:', 'ticket:', 'ledger', 'updated'].map((part) => keySlot(`${prefix}{${tag}}${part}x`));
        expect(new Set(slots).size).toBe(1);
        // The buckets' tags sit in 64 distinct slot ranges, so any split of the slots spreads them.
        expect(new Set(BUCKET_TAGS.map((each) => Math.floor(keySlot(each) / 256))).size).toBe(64);
      });

      it('lists across the buckets in list order, paged and filtered', async () => {
        const storage = await open();
        const records = Array.from({ length: 45 }, (_, i) =>
          scoped({ updatedAt: T + (i % 9), tool: i % 3 === 0 ? 'refund' : 'send_payment' }),
        );
        await Promise.all(records.map((record) => storage.create(record)));

        const all = await listAll(storage, { limit: 7 });
        expect(all.keys).toEqual(inListOrder(records));
        expect(all.pageSizes.slice(0, -1).every((size) => size === 7)).toBe(true);
        const refunds = await listAll(storage, { limit: 4, tool: 'refund' });
        expect(refunds.keys).toEqual(inListOrder(records.filter((record) => record.tool === 'refund')));
        const window = await listAll(storage, { limit: 5, updatedFrom: T + 2, updatedTo: T + 6 });
        const inWindow = records.filter((record) => record.updatedAt >= T + 2 && record.updatedAt < T + 6);
        expect(window.keys).toEqual(inListOrder(inWindow));
      });

      it('refuses every write to a bucket whose marker copy vanished, and a new storage refuses the store', async () => {
        const storage = await open();
        // Bucket 0 holds the marker itself, not a copy: a new storage would write a new one there.
        let record = scoped();
        while (bucketOf(record) === 0) record = scoped();
        await storage.create(record);
        const marker = `${prefix}{${BUCKET_TAGS[bucketOf(record)]}}ledger`;
        const { master } = await own.shardOf(marker);
        await own.cli(master, 'DEL', marker);

        await expect(storage.update(record.key, 1, { ...record, version: 2 })).rejects.toBeInstanceOf(
          LedgerStorageCorruptError,
        );
        const sibling = scoped({ scope: record.scope });
        await expect(storage.create(sibling)).rejects.toBeInstanceOf(LedgerStorageCorruptError);
        await expect((await open()).identity()).rejects.toThrow(/copy of the ledger marker in bucket/);
        await expect((await open({ create: false })).identity()).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      });

      it('reads a route without its record (a claim that died between them) as no record, and a route of no bucket as corrupt', async () => {
        const storage = await open();
        await storage.identity();
        const record = scoped();
        const route = `${prefix}route:{${record.key}}`;
        const { master } = await own.shardOf(route);
        await own.cli(master, 'SET', route, String(bucketOf(record)));

        expect(await storage.get(record.key)).toBeNull();
        expect((await storage.create(record)).created).toBe(true);
        expect(await storage.get(record.key)).toEqual(record);
        const stray = scoped();
        const strayRoute = `${prefix}route:{${stray.key}}`;
        await own.cli((await own.shardOf(strayRoute)).master, 'SET', strayRoute, '64');
        await expect((await open()).get(stray.key)).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      });

      it('loads its scripts again on every master after SCRIPT FLUSH', async () => {
        const storage = await open();
        const first = scoped();
        await storage.create(first);
        for (const node of own.nodes) await own.cli(node.port, 'SCRIPT', 'FLUSH');

        const records = Array.from({ length: 12 }, () => scoped());
        for (const record of records) expect((await storage.create(record)).created).toBe(true);
        expect(await storage.update(first.key, 1, { ...first, version: 2 })).toBe(true);
        expect(await storage.findByTicket(records[3]?.ticketKey ?? '')).toEqual(records[3]);
        expect((await listAll(storage, { limit: 5 })).keys).toHaveLength(13);
      });

      it('opens no ledger on an empty cluster with `create: false`', async () => {
        await expect((await open({ create: false })).create(scoped())).rejects.toThrow(/holds no ledger/);
      });

      it('reads the maxmemory-policy of every master', async () => {
        const { master } = await own.shardOf(`${prefix}{${BUCKET_TAGS[40]}}ledger`);
        await own.cli(master, 'CONFIG', 'SET', 'maxmemory-policy', 'allkeys-lru');
        try {
          const hazards = await (await open()).hazards();
          expect(hazards.map((hazard) => hazard.code)).toEqual(['evicting_maxmemory_policy']);
        } finally {
          await own.cli(master, 'CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
        }
        expect(await (await open()).hazards()).toEqual([]);
      });

      it('keeps a hash-tagged prefix in its one slot, as before', async () => {
        prefix = `{${runPrefix}${kind}:${randomUUID()}}:`;
        const storage = await open();
        const records = Array.from({ length: 10 }, () => scoped());
        for (const record of records) await storage.create(record);
        const counts = [...(await keysPerMaster(own, prefix)).values()];
        expect(counts.filter((count) => count > 0)).toHaveLength(1);
        expect((await listAll(storage, { limit: 3 })).keys).toEqual(inListOrder(records));
        expect(await storage.findByTicket(records[0]?.ticketKey ?? '')).toEqual(records[0]);
        await expectShardedNotices(own, storage, await open());
      });
    });
  }
});

/**
 * Updates through `writer` are heard by a watch through `watcher`, and none of their notices crossed
 * the cluster bus as a plain PUBLISH (which reaches every node, once per update).
 */
async function expectShardedNotices(own: OwnCluster, writer: RedisStorage, watcher: RedisStorage): Promise<void> {
  const records = Array.from({ length: 24 }, () => scoped());
  for (const record of records) await writer.create(record);
  const watched = records[5] as TransitionRecord;
  let heard = 0;
  const stop = watcher.watch(watched.key, () => {
    heard += 1;
  });
  try {
    await eventually(() => heard > 0, 'the watch was never live');
    const plainPublishes = async (): Promise<number> => {
      let total = 0;
      for (const node of own.nodes) {
        const info = await own.cli(node.port, 'CLUSTER', 'INFO');
        total += Number(/cluster_stats_messages_publish_received:(\d+)/.exec(info)?.[1] ?? 0);
      }
      return total;
    };
    const before = await plainPublishes();
    const live = heard;
    for (const record of records) expect(await writer.update(record.key, 1, { ...record, version: 2 })).toBe(true);
    await eventually(() => heard > live, 'the update was not heard');
    expect((await plainPublishes()) - before).toBe(0);
  } finally {
    stop();
  }
}

/** Connections each node of `own` holds, by port. */
async function clientsPerNode(own: OwnCluster): Promise<Map<number, number>> {
  const counts = new Map<number, number>();
  for (const node of own.nodes) {
    const info = await own.cli(node.port, 'INFO', 'clients');
    counts.set(node.port, Number(/connected_clients:(\d+)/.exec(info)?.[1]));
  }
  return counts;
}

/** `WAIT` calls each master has answered, by port. */
async function waitsPerMaster(own: OwnCluster): Promise<number> {
  let total = 0;
  for (const node of own.nodes) {
    const stats = await own.cli(node.port, 'INFO', 'commandstats');
    total += Number(/cmdstat_wait:calls=(\d+)/.exec(stats)?.[1] ?? 0);
  }
  return total;
}

describe.skipIf(cluster === null)('a cluster the storage connects to itself', () => {
  const own = cluster as OwnCluster;
  const tempDir = useTempDir();
  let prefix: string;

  beforeEach(() => {
    prefix = `${runPrefix}owned:${randomUUID()}:`;
  });
  afterEach(async () => {
    await deleteClusterKeys(own, prefix);
  });

  it('connects from the node URLs at the first operation, spreads the ledger and closes its connections', async () => {
    const before = await clientsPerNode(own);
    const storage = createRedisStorage({ cluster: [own.nodes[0]?.url ?? '', own.nodes[1]?.url ?? ''] }, { prefix });
    expect(await clientsPerNode(own)).toEqual(before);

    const records = Array.from({ length: 30 }, () => scoped());
    for (const record of records) expect((await storage.create(record)).created).toBe(true);
    const counts = await keysPerMaster(own, prefix);
    expect([...counts.values()].filter((count) => count > 0)).toHaveLength(3);
    expect(await storage.get(records[7]?.key ?? '')).toEqual(records[7]);
    expect(await storage.findByTicket(records[3]?.ticketKey ?? '')).toEqual(records[3]);
    // Three masters with one replica each; nothing in this file stops a node.
    const masters = await storage.replicas();
    expect(masters.map((master) => master.replicas)).toEqual([1, 1, 1]);
    const ports = own.nodes.map((node) => `port ${node.port}`);
    expect(new Set(masters.map((master) => master.node)).size).toBe(3);
    for (const master of masters) expect(ports).toContain(master.node);

    await storage.close();
    await expect(storage.get(records[0]?.key ?? '')).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
    await vi.waitFor(async () => expect(await clientsPerNode(own)).toEqual(before), { timeout: 5000 });
  });

  it('refuses a cluster option that is not a list of redis:// URLs, without repeating a password', () => {
    for (const cluster of [[], 'redis://127.0.0.1:7101', ['http://user:hunter2@127.0.0.1:7101'], ['nope'], [7101]]) {
      const error = (() => {
        try {
          createRedisStorage({ cluster } as unknown as { cluster: string[] });
        } catch (thrown) {
          return thrown;
        }
        return null;
      })();
      expect(error).toBeInstanceOf(InvalidOptionError);
      expect((error as InvalidOptionError).message).toMatch(/option `cluster`/);
      expect((error as InvalidOptionError).message).not.toMatch(/hunter2/);
    }
  });

  it('says which package to install when `redis` is missing, naming the `cluster` URLs', async () => {
    const missing = Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' });
    const { source } = ownedClusterConnection(['redis://127.0.0.1:1'], () => Promise.reject(missing));
    const error = await Promise.resolve(source.client('create')).catch((thrown: unknown) => thrown);

    expect(error).toMatchObject({ code: 'missing_peer_dependency' });
    expect((error as Error).message).toMatch(/needs the peer dependency `redis` to connect to the `cluster` URLs/);
    expect((error as Error).message).toMatch(/npm install redis/);
  });

  it('answers LedgerStorageUnavailableError on every operation while no node answers', async () => {
    const storage = createRedisStorage({ cluster: ['redis://127.0.0.1:1'] }, { prefix });
    await expect(storage.create(scoped())).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
    await expect(storage.create(scoped())).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
    await storage.close();
  });

  it('runs a ledgered tool from hyphae.yaml with `cluster: true` and `wait_for_replicas`, and doctor reads it', async () => {
    const dir = tempDir();
    const file = join(dir, 'hyphae.yaml');
    writeFileSync(
      file,
      yaml(
        'transition: { agent_id: a, policy_version: 1 }',
        'action_ledger:',
        '  storage: redis',
        '  url_env: CLUSTER_URLS',
        '  cluster: true',
        '  wait_for_replicas: { replicas: 1, timeout: 2s }',
        `  prefix: "${prefix}"`,
        'tools:',
        '  pay: { side_effect_class: payment, identity: intent }',
      ),
    );
    const env = { CLUSTER_URLS: `${own.nodes[0]?.url}, ${own.nodes[2]?.url}` };
    const config = await loadConfig(file, { env });
    let runs = 0;
    const { pay } = config.instrument({
      pay: async (
        args: { readonly amount: number; readonly runId: string },
        _options: { readonly toolCallId: string },
      ) => {
        runs += 1;
        return `paid ${args.amount}`;
      },
    });
    const waitsBefore = await waitsPerMaster(own);
    const results = [];
    for (let i = 0; i < 12; i += 1) results.push(await pay({ amount: i, runId: `r${i}` }, { toolCallId: `c${i}` }));
    results.push(await pay({ amount: 3, runId: 'r3' }, { toolCallId: 'c3' }));
    const waits = (await waitsPerMaster(own)) - waitsBefore;
    await config.close();

    expect(results.at(-1)).toBe('paid 3');
    expect(runs).toBe(12);
    expect(waits).toBeGreaterThanOrEqual(24);
    expect([...(await keysPerMaster(own, prefix)).values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(12);

    const doctor = hyphae(dir, ['doctor'], env);
    expect(doctor.stdout).toMatch(/ok +action ledger +redis cluster: connected\n +ledger [0-9a-f-]{36}/);
    expect(doctor.code).toBe(0);
  });

  it('passes `hyphae verify` on the example config with `cluster: true`, and leaves no key behind', async () => {
    const dir = tempDir();
    const example = readFileSync(new URL('../../examples/config/hyphae.redis.yaml', import.meta.url), 'utf8');
    const file = join(dir, 'hyphae.yaml');
    writeFileSync(
      file,
      example.replace('  url_env: REDIS_URL\n', `  url_env: REDIS_URL\n  cluster: true\n  prefix: "${prefix}"\n`),
    );
    const json = join(dir, 'report.json');
    const run = hyphae(dir, ['verify', '-c', file, '--json', json], { REDIS_URL: own.nodes[1]?.url ?? '' });
    const report = JSON.parse(readFileSync(json, 'utf8')) as { summary: { fail: number; pass: number } };

    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('redis cluster (keys under');
    expect(report.summary.fail).toBe(0);
    expect(report.summary.pass).toBeGreaterThan(5);
    expect([...(await keysPerMaster(own, prefix)).values()].reduce((a, b) => a + b, 0)).toBe(0);
  });
});
