/**
 * Failovers under the ledger on a Redis Cluster of the file's own (ports 7111–7116, started afresh
 * for each case): a `CLUSTER FAILOVER` of the master holding a hot scope in the middle of a run,
 * and what a master that acknowledged writes and then died takes with it — with and without
 * `waitForReplicas`.
 *
 * Every call is a `non_idempotent_mutate` whose body runs in `sideEffect`; the fake provider counts
 * the effects of each call, and a count above one is a duplicate effect.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createLedger,
  GuardError,
  LedgerHardBlockError,
  LedgerStorageUnavailableError,
  sideEffect,
} from '../../src/index.js';
import { BUCKET_TAGS, bucketOf } from '../../src/storage/redis/cluster.js';
import type { RedisStorage, RedisStorageSettings } from '../../src/storage/redis.js';
import { createFakeProvider, type FakeProvider, inLanes } from '../helpers/chaos.js';
import { hasRedisServer } from '../helpers/own-redis.js';
import {
  type ClusterClientKind,
  type OwnCluster,
  openClusterStorage,
  ownClusterOrSkip,
} from '../helpers/redis-cluster.js';

const AGENT_ID = 'hyphae-failover-agent';
const HOT = { threadId: 'hot-thread', runId: 'hot-run' };
const BASE_PORT = 7111;
const available = await hasRedisServer();
if (!available && process.env.REQUIRE_INTEGRATION === '1') {
  throw new Error('REQUIRE_INTEGRATION=1 and `redis-server` is not installed: no Redis Cluster');
}
/** A failover and its redispatches take seconds; a loaded machine may need more. */
const FAILOVER_TIMEOUT_MS = 180_000;

let cluster: OwnCluster | null = null;
const opened: RedisStorage[] = [];

afterEach(async () => {
  await Promise.all(opened.splice(0).map((storage) => storage.close().catch(() => {})));
  await cluster?.stop();
  cluster = null;
});

async function freshCluster(): Promise<OwnCluster> {
  cluster = await ownClusterOrSkip(BASE_PORT);
  return cluster as OwnCluster;
}

/** The master serving the hot scope's bucket, and its replica. */
function hotShard(own: OwnCluster, prefix: string): Promise<{ master: number; replica: number }> {
  const tag = BUCKET_TAGS[bucketOf({ agentId: AGENT_ID, scope: HOT })];
  return own.shardOf(`${prefix}{${tag}}ledger`);
}

async function ledgerOn(own: OwnCluster, kind: ClusterClientKind, settings: RedisStorageSettings) {
  const storage = await openClusterStorage(own, kind, settings);
  opened.push(storage);
  const ledger = createLedger({
    storage,
    agentId: AGENT_ID,
    policyVersion: 'failover-1',
    leaseTtlMs: 1_000,
    pollIntervalMs: 10,
    pollMaxIntervalMs: 100,
  });
  return (provider: FakeProvider) =>
    ledger.tool({ name: 'hot_charge', sideEffectClass: 'non_idempotent_mutate' }, (args: { call: string }) =>
      sideEffect(() => provider.effect(args.call)),
    );
}

/** Call until the store answers: an unavailable store (a failover under way) is tried again for up to 30 s. */
async function untilAnswered<T>(call: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      return await call();
    } catch (error) {
      if (!(error instanceof LedgerStorageUnavailableError) || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

const calls = (count: number): string[] => Array.from({ length: count }, () => `call_${randomUUID()}`);

describe.skipIf(!available)('redis cluster failover under the ledger', () => {
  for (const kind of ['node-redis', 'ioredis'] as const) {
    it(
      `CLUSTER FAILOVER of the hot master mid-run: every call ends typed, none runs twice (${kind})`,
      async () => {
        const own = await freshCluster();
        const prefix = `hyphae-test:failover:${randomUUID()}:`;
        const provider = createFakeProvider();
        const charge = (await ledgerOn(own, kind, { prefix }))(provider);
        const { replica } = await hotShard(own, prefix);
        const ids = calls(200);

        let failedOver: Promise<string> | null = null;
        const first = await inLanes(ids, 8, async (call) => {
          if (failedOver === null && provider.total >= 50) failedOver = own.cli(replica, 'CLUSTER', 'FAILOVER');
          return charge({ call }, { toolCallId: call, scope: HOT }).then(
            (value) => ({ ok: true as const, value }),
            (error: unknown) => ({ ok: false as const, error }),
          );
        });
        expect(await (failedOver as Promise<string> | null)).toContain('OK');
        await own.settle();
        expect(await own.cli(replica, 'ROLE')).toMatch(/^master/);
        for (const settled of first) if (!settled.ok) expect(settled.error).toBeInstanceOf(GuardError);

        // Every call again, through a storage that met the cluster after the failover.
        const again = (await ledgerOn(own, kind, { prefix }))(provider);
        for (const call of ids) {
          const before = provider.count(call);
          const outcome = await untilAnswered(() => again({ call }, { toolCallId: call, scope: HOT })).catch(
            (error: unknown) => error,
          );
          if (outcome instanceof Error) expect(outcome).toBeInstanceOf(LedgerHardBlockError);
          else expect(outcome).toEqual(provider.answer(call));
          if (before === 1) expect(provider.count(call)).toBe(1);
        }
        expect(provider.doubles).toEqual([]);
        expect(provider.total).toBeGreaterThanOrEqual(150);
      },
      FAILOVER_TIMEOUT_MS,
    );
  }

  /**
   * The replica of the hot master is frozen, the master acknowledges `count` completed calls, dies,
   * and the frozen replica takes over; then every call is dispatched again.
   */
  async function lostMaster(settings: Omit<RedisStorageSettings, 'prefix'>, count: number) {
    const own = await freshCluster();
    const prefix = `hyphae-test:lost:${randomUUID()}:`;
    const provider = createFakeProvider();
    const charge = (await ledgerOn(own, 'node-redis', { prefix, ...settings }))(provider);
    const { master, replica } = await hotShard(own, prefix);
    // Meet the ledger (its marker copies replicate) before the replica stops hearing anything.
    await (opened.at(-1) as RedisStorage).identity();
    await own.cli(master, 'WAIT', '1', '1000');
    // Frozen, and cut off: what the master writes from now on never reaches the replica's socket.
    own.signal(replica, 'SIGSTOP');
    await own.cli(master, 'CLIENT', 'KILL', 'TYPE', 'replica');
    const ids = calls(count);
    const first = await inLanes(ids, 4, (call) =>
      charge({ call }, { toolCallId: call, scope: HOT }).then(
        () => 'ok',
        (error: unknown) => (error instanceof Error ? error.name : String(error)),
      ),
    );
    const effectsBefore = provider.total;
    await own.kill(master);
    own.signal(replica, 'SIGCONT');
    await own.cli(replica, 'CLUSTER', 'FAILOVER', 'TAKEOVER');
    await own.settle();
    const again = (await ledgerOn(own, 'node-redis', { prefix }))(provider);
    const redispatched = [];
    for (const call of ids) {
      redispatched.push(
        await untilAnswered(() => again({ call }, { toolCallId: call, scope: HOT })).then(
          () => 'ok',
          (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error)),
        ),
      );
    }
    return { first, effectsBefore, redispatched, effects: provider.total, doubles: provider.doubles.length };
  }

  it(
    'a master that acknowledged completed calls and died before its replica had them: each runs again',
    async () => {
      const { first, effectsBefore, redispatched, doubles } = await lostMaster({}, 50);
      expect(first.every((outcome) => outcome === 'ok')).toBe(true);
      expect(effectsBefore).toBe(50);
      expect(redispatched.filter((outcome) => outcome !== 'ok')).toEqual([]);
      // Replication is asynchronous: the promoted replica never had the records, nor anything to tell.
      expect(doubles).toBe(50);
    },
    FAILOVER_TIMEOUT_MS,
  );

  it(
    'with waitForReplicas the same calls are refused before they run, and run once after the failover',
    async () => {
      const wait = { replicas: 1, timeoutMs: 100 };
      const { first, effectsBefore, redispatched, effects, doubles } = await lostMaster({ waitForReplicas: wait }, 50);
      expect(new Set(first)).toEqual(new Set(['LedgerStorageUnavailableError']));
      expect(effectsBefore).toBe(0);
      // The refused claims died with the master: every call runs once, on the promoted replica.
      expect(redispatched.filter((outcome) => outcome !== 'ok')).toEqual([]);
      expect(effects).toBe(50);
      expect(doubles).toBe(0);
    },
    FAILOVER_TIMEOUT_MS,
  );

  it(
    'with waitForReplicas a killed master loses no acknowledged call',
    async () => {
      const own = await freshCluster();
      const prefix = `hyphae-test:wait:${randomUUID()}:`;
      const provider = createFakeProvider();
      const settings = { prefix, waitForReplicas: { replicas: 1, timeoutMs: 1_000 } };
      const charge = (await ledgerOn(own, 'ioredis', settings))(provider);
      const { master, replica } = await hotShard(own, prefix);
      const ids = calls(50);
      await inLanes(ids, 4, (call) => charge({ call }, { toolCallId: call, scope: HOT }));
      await own.kill(master);
      await own.cli(replica, 'CLUSTER', 'FAILOVER', 'TAKEOVER');
      await own.settle();
      const again = (await ledgerOn(own, 'node-redis', { prefix }))(provider);
      for (const call of ids) {
        expect(await untilAnswered(() => again({ call }, { toolCallId: call, scope: HOT }))).toEqual(
          provider.answer(call),
        );
      }
      expect(provider.total).toBe(50);
      expect(provider.doubles).toEqual([]);
    },
    FAILOVER_TIMEOUT_MS,
  );
});
