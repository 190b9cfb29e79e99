/**
 * Redis ledger storage (`hyphae/redis`): one Lua script per atomic operation, for many workers.
 *
 * @module
 */
import { LedgerMissingError } from '../errors.js';
import { checkDriverArguments } from '../invalid-argument.js';
import type { LedgerIdentity, LedgerStorage, StorageCapabilities, StorageHazard } from './ledger-storage.js';
import { createdResult, decodeRecord, encodeRecord } from './record-codec.js';
import { hasHashTag } from './redis/cluster.js';
import { createClusterStorage } from './redis/cluster-storage.js';
import { createScriptRunner, type RedisClientLike, replyText, toStorageError } from './redis/connection.js';
import { connectionOf, type RedisConnectionOptions } from './redis/connection-options.js';
import { listRecords, planList } from './redis/list.js';
import {
  createArgs,
  createKeys,
  createOutcome,
  type RecordLayout,
  ticketCommand,
  ticketOutcome,
  updateArgs,
  updateKeys,
  updateOutcome,
} from './redis/operations.js';
import { keepHazards, maxmemoryHazards, type RedisPreflight, runPreflight } from './redis/preflight.js';
import {
  createReplicationGate,
  type MasterReplicas,
  replicasOf,
  replicasOfMasters,
  type WaitForReplicas,
  waitForReplicasOf,
} from './redis/replication.js';
import {
  CREATE_RECORD_SCRIPT,
  FIND_BY_TICKET_SCRIPT,
  SHARDED_UPDATE_RECORD_SCRIPT,
  UPDATE_RECORD_SCRIPT,
} from './redis/scripts.js';
import { createSubscriptions } from './redis/subscriptions.js';

export type { RedisClusterLike, RedisClusterNodeLike } from './redis/cluster.js';
export type { RedisClientLike } from './redis/connection.js';
export type { RedisConnectionOptions } from './redis/connection-options.js';
export {
  fromIoredis,
  type IoredisClusterLike,
  type IoredisLike,
  type IoredisNodeLike,
  type IoredisSubscriberLike,
} from './redis/ioredis.js';
export type { MasterReplicas, WaitForReplicas } from './redis/replication.js';
export type { RedisSubscriberLike } from './redis/subscriptions.js';

/** Settings of the Redis driver. */
export interface RedisStorageSettings {
  /**
   * Prefix of every key the driver writes; default `hyphae:`. On a cluster client a prefix without a
   * hash tag spreads the ledger over every master; one with a hash tag (`{hyphae}:`) keeps the whole
   * ledger in that tag's slot, as earlier versions did.
   */
  readonly prefix?: string;
  /**
   * Accept a server whose `maxmemory-policy` is not `noeviction` (or cannot be read): side-effecting
   * calls then go on, with a warning through the ledger's logger. Default false: they are refused
   * with `LedgerStorageUnsafeError`, since an evicted completed record runs its call again.
   */
  readonly allowEviction?: boolean;
  /**
   * Initialise the ledger marker when the store holds none (default true). False opens only a
   * ledger that exists: a server that restarted empty or was flushed fails closed with
   * `LedgerStorageCorruptError` instead of starting a new, empty ledger.
   */
  readonly create?: boolean;
  /**
   * After each claim and each update, `WAIT` until this many replicas hold the write (default: no
   * wait). A write fewer replicas acknowledged in time fails with `LedgerStorageUnavailableError`
   * (a claim then does not run its tool), so a failover cannot lose a write the ledger acted on;
   * each write costs a replication round trip, and a missing replica stops the ledger's writes.
   */
  readonly waitForReplicas?: WaitForReplicas;
}

/** Ledger storage backed by Redis. */
export interface RedisStorage extends LedgerStorage {
  /** The prefix of every key this storage reads and writes. */
  readonly prefix: string;
  /** The `maxmemory-policy` hazards found when the storage connected (it connects if it has not). */
  hazards(): readonly StorageHazard[] | Promise<readonly StorageHazard[]>;
  /** The ledger marker: met, or written when the store held none (see `create`). */
  identity(): Promise<LedgerIdentity>;
  /**
   * Hear of every update of `key` by any client (the update script publishes it), and once when the
   * subscription is live, through a subscriber connection opened at the first watch: a `duplicate()`
   * of the client you passed, or a second client from the URL. Without `duplicate()` nothing is
   * heard and pollers poll.
   */
  watch(key: string, onChange: () => void): () => void;
  /**
   * The replicas connected to each master the storage writes to (`INFO`): one entry on one server,
   * one per master on a cluster. While a master has fewer than `waitForReplicas` asks, every write
   * to it is refused; `hyphae doctor` checks this.
   */
  replicas(): Promise<readonly MasterReplicas[]>;
}

const CAPABILITIES: StorageCapabilities = Object.freeze({ name: 'redis', crossProcess: true, durable: true });

/**
 * Create a ledger storage on Redis; nothing connects until the first operation.
 *
 * Every write is one Lua script (create with its ticket index entry, compare-and-set update), run
 * with EVALSHA and loaded again when the server answers NOSCRIPT. Durability is the server's: use
 * AOF with `appendfsync always` (or `everysec` knowingly) for a ledger that must survive a crash.
 * When it first connects the storage reads the server's `maxmemory-policy` (anything but
 * `noeviction` is a hazard the ledger refuses side effects on, see `allowEviction`) and meets or
 * writes the ledger marker that every later write checks (see `create`).
 *
 * @example
 * import { createClient } from 'redis';
 * import { createRedisStorage } from 'hyphae/redis';
 *
 * const client = await createClient({ url: 'redis://127.0.0.1:6379' }).connect();
 * const storage = createRedisStorage({ client }, { prefix: 'payments:' });
 * const ledger = createLedger({ storage, agentId: 'payment-agent', policyVersion: '1' });
 * // or let the storage own its client: createRedisStorage({ url: 'redis://127.0.0.1:6379' })
 * // on Redis Cluster, a cluster client spreads the ledger over every master:
 * // createRedisStorage({ client: await createCluster({ rootNodes: [{ url }] }).connect() })
 */
export function createRedisStorage(
  connection: RedisConnectionOptions,
  settings: RedisStorageSettings = {},
): RedisStorage {
  checkDriverArguments('createRedisStorage', connection, settings);
  const prefix = settings.prefix ?? 'hyphae:';
  const { source, cluster } = connectionOf(connection);
  const waitForReplicas = waitForReplicasOf(settings.waitForReplicas);
  if (cluster !== null && !hasHashTag(prefix)) {
    let closed = false;
    const spread = createClusterStorage({
      prefix,
      ...cluster,
      create: settings.create ?? true,
      allowEviction: settings.allowEviction ?? false,
      waitForReplicas,
      isClosed: () => closed,
    });
    return {
      ...spread,
      prefix,
      capabilities: CAPABILITIES,
      async replicas() {
        try {
          return await replicasOfMasters(cluster.routing);
        } catch (error) {
          throw toStorageError('replicas', `redis:${prefix}`, error);
        }
      },
      async close() {
        closed = true;
        await spread.close();
        await source.close();
      },
    };
  }
  const scripts = createScriptRunner();
  // On a cluster (a hash-tagged prefix) the notices are sharded, as in the bucket layout: the update
  // script and the subscriptions must agree.
  const sharded = cluster !== null;
  const notices = createSubscriptions(() => source.openSubscriber(), { sharded });
  const updateScript = sharded ? SHARDED_UPDATE_RECORD_SCRIPT : UPDATE_RECORD_SCRIPT;
  const recordPrefix = `${prefix}rec:`;
  const indexKey = `${prefix}updated`;
  const recordKey = (key: string): string => `${recordPrefix}${key}`;
  const ticketIndexKey = (ticketKey: string): string => `${prefix}ticket:${ticketKey}`;
  const locationOf = (key: string): string => `redis:${recordKey(key)}`;
  const markerKey = `${prefix}ledger`;
  const layout: RecordLayout = { recordPrefix, index: indexKey, marker: markerKey, ticketPrefix: `${prefix}ticket:` };
  const preflightSettings = {
    markerKey,
    indexKey,
    create: settings.create ?? true,
    allowEviction: settings.allowEviction ?? false,
  };
  // Checked once, at the first connection; every write then names the ledger id it met.
  let preflight: RedisPreflight | null = null;
  let preflighting: Promise<RedisPreflight> | null = null;
  function prepare(client: RedisClientLike): RedisPreflight | Promise<RedisPreflight> {
    if (preflight !== null) return preflight;
    preflighting ??= preflightOn(client).then(
      (found) => {
        if (keepHazards(found.hazards)) preflight = found;
        else preflighting = null;
        return found;
      },
      (error: unknown) => {
        preflighting = null;
        throw error;
      },
    );
    return preflighting;
  }
  // On a cluster (a hash-tagged prefix: one slot) every master's policy is checked, not only one.
  async function preflightOn(client: RedisClientLike): Promise<RedisPreflight> {
    const found = await runPreflight(client, scripts, preflightSettings);
    if (cluster === null) return found;
    const masters = await cluster.routing.masters();
    const policies = await Promise.all(
      masters.map((master) => maxmemoryHazards(master, preflightSettings.allowEviction)),
    );
    const hazards = [...new Map(policies.flat().map((hazard) => [hazard.message, hazard])).values()];
    return { identity: found.identity, hazards };
  }
  // `WAIT` for the replicas the settings ask for, on the connection that carried the write.
  const gate = createReplicationGate(waitForReplicas);
  const sendFor =
    (client: RedisClientLike, key: string) =>
    (args: readonly string[]): Promise<unknown> =>
      cluster === null ? client.sendCommand(args) : cluster.routing.sendTo(key, args);
  function replicated(operation: string, client: RedisClientLike, key: string): Promise<void> | undefined {
    return waitForReplicas === null ? undefined : gate.written(operation, key, sendFor(client, key));
  }
  async function ledgerIdOf(client: RedisClientLike): Promise<string> {
    return (preflight ?? (await prepare(client))).identity.ledgerId;
  }

  /** Run `body` with a ready client, translating every failure into a storage error. */
  async function withClient<T>(
    operation: string,
    location: string,
    body: (client: RedisClientLike) => Promise<T>,
  ): Promise<T> {
    const pending = source.client(operation);
    const client = pending instanceof Promise ? await pending : pending;
    try {
      return await body(client);
    } catch (error) {
      throw toStorageError(operation, location, error);
    }
  }

  const createSha = scripts.sha(CREATE_RECORD_SCRIPT);
  const updateSha = scripts.sha(updateScript);

  return {
    prefix,
    capabilities: CAPABILITIES,

    async get(key) {
      return withClient('get', locationOf(key), async (client) => {
        if (waitForReplicas !== null) await gate.reading('get', recordKey(key), sendFor(client, recordKey(key)));
        const text = replyText(await client.sendCommand(['HGET', recordKey(key), 'doc']));
        return text === null ? null : decodeRecord(text, locationOf(key));
      });
    },

    // create and update are on every ledgered call: one async frame each, one command array.
    async create(record) {
      const { key } = record;
      try {
        const ready = source.client('create');
        const client = ready instanceof Promise ? await ready : ready;
        const ledgerId = preflight?.identity.ledgerId ?? (await ledgerIdOf(client));
        const doc = encodeRecord(record);
        const keys = createKeys(layout, record);
        const command = [
          'EVALSHA',
          createSha,
          String(keys.length),
          ...keys,
          ...createArgs(layout, record, doc, ledgerId),
        ];
        const outcome = createOutcome(
          await scripts.send(client, CREATE_RECORD_SCRIPT, command),
          layout,
          ledgerId,
          locationOf,
          key,
        );
        if (outcome !== 'created') return outcome;
        if (waitForReplicas !== null) await replicated('create', client, recordKey(key));
        return createdResult(doc, locationOf(key));
      } catch (error) {
        throw toStorageError('create', locationOf(key), error);
      }
    },

    async update(key, expectedVersion, next) {
      try {
        const ready = source.client('update');
        const client = ready instanceof Promise ? await ready : ready;
        const ledgerId = preflight?.identity.ledgerId ?? (await ledgerIdOf(client));
        const keys = updateKeys(layout, key);
        let candidate = next;
        // At most two rounds: the stored ticket never changes, so a re-encoded record matches it.
        for (let round = 0; round < 2; round += 1) {
          const args = updateArgs(key, expectedVersion, candidate, encodeRecord(candidate), ledgerId);
          const command = ['EVALSHA', updateSha, '3', ...keys, ...args];
          const outcome = updateOutcome(await scripts.send(client, updateScript, command), layout, ledgerId);
          if (outcome === true) {
            if (waitForReplicas !== null) await replicated('update', client, recordKey(key));
            return true;
          }
          if (outcome === false) return false;
          candidate = { ...candidate, ticketKey: outcome.ticketKey };
        }
        throw new TypeError('Unexpected reply from the Redis update script');
      } catch (error) {
        throw toStorageError('update', locationOf(key), error);
      }
    },

    async findByTicket(ticketKey) {
      return withClient('findByTicket', `redis:${ticketIndexKey(ticketKey)}`, async (client) => {
        const ledgerId = await ledgerIdOf(client);
        const { keys, args } = ticketCommand(layout, ticketKey, ledgerId);
        return ticketOutcome(
          await scripts.run(client, FIND_BY_TICKET_SCRIPT, keys, args),
          layout,
          ledgerId,
          locationOf,
        );
      });
    },

    async list(query = {}) {
      // Validated before any I/O so a bad limit or cursor is a RangeError, not an unavailable store.
      const plan = planList(query);
      return withClient('list', `redis:${indexKey}`, (client) =>
        listRecords(plan, recordPrefix, locationOf, (script, args) => scripts.run(client, script, [indexKey], args)),
      );
    },

    hazards() {
      if (preflight !== null) return preflight.hazards;
      return withClient('connect', `redis:${markerKey}`, async (client) => {
        try {
          return (await prepare(client)).hazards;
        } catch (error) {
          // A store with no ledger yet (`create: false`) still has a server whose policy can be read.
          if (error instanceof LedgerMissingError) return maxmemoryHazards(client, preflightSettings.allowEviction);
          throw error;
        }
      });
    },

    identity() {
      return withClient('connect', `redis:${markerKey}`, async (client) => (await prepare(client)).identity);
    },

    replicas() {
      return withClient('replicas', `redis:${markerKey}`, async (client) =>
        cluster === null ? [await replicasOf(client)] : replicasOfMasters(cluster.routing),
      );
    },

    watch(key, onChange) {
      // The update script publishes every write on the channel named like the record's hash.
      return notices.watch(recordKey(key), onChange);
    },

    async close() {
      await notices.close();
      await source.close();
    },
  };
}
