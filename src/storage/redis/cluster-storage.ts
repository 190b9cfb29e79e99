/**
 * The Redis driver on a cluster client: the ledger spread over 64 hash-tagged buckets, each with
 * its own copy of the ledger marker and its own list index, so every script's keys share a slot.
 *
 * Layout under a prefix `p` (no hash tag in it), with `{b}` the tag of a record's bucket:
 * - `p{b}rec:<key>`, `p{b}ticket:<ticketKey>`, `p{b}updated`: as on one node, per bucket;
 * - `p{b}ledger`: the bucket's copy of the ledger marker, checked by every script in the bucket;
 * - `proute:{<key>}` and `ptickets:{<ticketKey>}`: the bucket of a key and of a ticket (in the
 *   slot of the key or ticket itself), so `get(key)` and `findByTicket(ticketKey)`, which know
 *   nothing else, find the bucket. A bucket is a function of the record, so a route never changes;
 *   it is written before the record and is only ever a hint: the record in the bucket decides.
 */
import { LedgerStorageCorruptError, LedgerStorageUnavailableError } from '../../errors.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type {
  CreateResult,
  LedgerIdentity,
  LedgerStorage,
  ListPage,
  ListQuery,
  StorageHazard,
} from '../ledger-storage.js';
import { createdResult, decodeRecord, encodeRecord } from '../record-codec.js';
import { BUCKET_TAGS, BUCKETS, bucketOf, type ClusterRouting } from './cluster.js';
import { listAcrossBuckets } from './cluster-list.js';
import { connectHeard, createScriptRunner, type RedisClientLike, replyText, toStorageError } from './connection.js';
import { planList } from './list.js';
import {
  createArgs,
  createKeys,
  createOutcome,
  ticketCommand,
  ticketOutcome,
  updateArgs,
  updateKeys,
  updateOutcome,
} from './operations.js';
import { keepHazards, ledgerIdentity, maxmemoryHazards } from './preflight.js';
import { createReplicationGate, type WaitForReplicas } from './replication.js';
import { CREATE_RECORD_SCRIPT, FIND_BY_TICKET_SCRIPT, SHARDED_UPDATE_RECORD_SCRIPT } from './scripts.js';
import { createSubscriptions } from './subscriptions.js';

/**
 * Meet or write one bucket's copy of the ledger marker.
 *
 * KEYS[1]  the bucket's marker (`p{b}ledger`)
 * ARGV[1]  the ledger id met in bucket 0
 * ARGV[2]  its epoch ms
 * ARGV[3]  `'1'` to write the copy when there is none, `'0'` to only read it
 * Returns  the id the copy holds (after writing it), or nil when there is none and ARGV[3] is `'0'`
 */
export const COPY_MARKER_SCRIPT = `
local id = redis.call('HGET', KEYS[1], 'id')
if id then return id end
if ARGV[3] ~= '1' then return false end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'at', ARGV[2])
return ARGV[1]
`;

/** Field of bucket 0's marker set once every bucket holds its copy. */
const COPIES_FIELD = 'buckets';

/** What the cluster storage is given by `createRedisStorage`. */
export interface ClusterStorageOptions {
  readonly prefix: string;
  readonly client: RedisClientLike;
  readonly routing: ClusterRouting;
  readonly create: boolean;
  readonly allowEviction: boolean;
  readonly waitForReplicas: WaitForReplicas | null;
  readonly isClosed: () => boolean;
}

/** The keys of one bucket. */
interface Bucket {
  readonly recordPrefix: string;
  readonly index: string;
  readonly marker: string;
  readonly ticketPrefix: string;
}

/** Key → bucket routes this storage has met, bounded (a route never changes, so any copy is right). */
class RouteCache {
  readonly #routes = new Map<string, number>();
  get(key: string): number | undefined {
    return this.#routes.get(key);
  }
  set(key: string, bucket: number): void {
    if (this.#routes.size >= 10_000) this.#routes.clear();
    this.#routes.set(key, bucket);
  }
}

/** The storage methods over a cluster; `createRedisStorage` adds its prefix and capabilities. */
export interface ClusterStorage extends Pick<LedgerStorage, 'get' | 'create' | 'update' | 'findByTicket' | 'list'> {
  hazards(): Promise<readonly StorageHazard[]>;
  identity(): Promise<LedgerIdentity>;
  watch(key: string, onChange: () => void): () => void;
  close(): Promise<void>;
}

/** The storage methods over a cluster; `createRedisStorage` adds the rest. */
export function createClusterStorage(options: ClusterStorageOptions): ClusterStorage {
  const { prefix, client, routing } = options;
  const scripts = createScriptRunner();
  const buckets: readonly Bucket[] = BUCKET_TAGS.map((tag) => ({
    recordPrefix: `${prefix}{${tag}}rec:`,
    index: `${prefix}{${tag}}updated`,
    marker: `${prefix}{${tag}}ledger`,
    ticketPrefix: `${prefix}{${tag}}ticket:`,
  }));
  const bucket = (index: number): Bucket => buckets[index] as Bucket;
  const keyRoute = (key: string): string => `${prefix}route:{${key}}`;
  const ticketRoute = (ticketKey: string): string => `${prefix}tickets:{${ticketKey}}`;
  const known = new RouteCache();
  const locationOf = (key: string, at?: number): string =>
    at === undefined ? `redis:${keyRoute(key)}` : `redis:${bucket(at).recordPrefix}${key}`;
  const send = (args: readonly string[]): Promise<unknown> => client.sendCommand(args);
  const notices = createSubscriptions(
    async () => {
      if (options.isClosed() || typeof client.duplicate !== 'function') return null;
      return connectHeard(client.duplicate());
    },
    { sharded: true },
  );

  function ready(operation: string): void {
    if (options.isClosed()) {
      throw new LedgerStorageUnavailableError(operation, { cause: new Error('Redis ledger storage is closed') });
    }
  }

  // Checked once, at the first operation: every master's policy, and every bucket's marker copy.
  let preflight: Promise<{ identity: LedgerIdentity; hazards: readonly StorageHazard[] }> | null = null;
  function prepare(): Promise<{ identity: LedgerIdentity; hazards: readonly StorageHazard[] }> {
    preflight ??= (async () => {
      const masters = await routing.masters();
      const found = await Promise.all(masters.map((master) => maxmemoryHazards(master, options.allowEviction)));
      const hazards = [...new Map(found.flat().map((hazard) => [hazard.message, hazard])).values()];
      const identity = await bucketIdentity();
      if (!keepHazards(hazards)) preflight = null;
      return { hazards, identity };
    })().catch((error: unknown) => {
      preflight = null;
      throw error;
    });
    return preflight;
  }

  async function bucketIdentity(): Promise<LedgerIdentity> {
    const first = bucket(0);
    const settings = { markerKey: first.marker, indexKey: first.index, create: options.create, allowEviction: true };
    const identity = await ledgerIdentity(client, scripts, settings);
    // Every copy is written right after bucket 0's marker; until the last is, a later open finishes the job.
    const complete = replyText(await send(['HGET', first.marker, COPIES_FIELD])) === String(BUCKETS);
    const args = [identity.ledgerId, String(identity.createdAt), complete ? '0' : '1'];
    const copies = await Promise.all(
      buckets.map((each) => scripts.run(client, COPY_MARKER_SCRIPT, [each.marker], args).then(replyText)),
    );
    copies.forEach((id, index) => {
      if (id === identity.ledgerId) return;
      const where = `redis:${bucket(index).marker}`;
      throw new LedgerStorageCorruptError(
        where,
        id === null
          ? `the copy of the ledger marker in bucket ${index} is gone while bucket 0 holds \`${identity.ledgerId}\` (the master serving its slot restarted empty, was flushed or failed over to an empty replica): records may be lost, so the store is refused`
          : `bucket ${index} holds the marker of another ledger (\`${id}\`, bucket 0 holds \`${identity.ledgerId}\`)`,
      );
    });
    if (!complete) await send(['HSET', first.marker, COPIES_FIELD, String(BUCKETS)]);
    return identity;
  }

  async function ledgerIdOf(): Promise<string> {
    return (await prepare()).identity.ledgerId;
  }

  const gate = createReplicationGate(options.waitForReplicas);
  const replicated = (operation: string, key: string): Promise<void> =>
    gate.written(operation, key, (args) => routing.sendTo(key, args));

  /** The bucket a route names; anything else means the store cannot be trusted. */
  function bucketNamed(route: string, text: string): number {
    const at = Number(text);
    if (!Number.isInteger(at) || at < 0 || at >= BUCKETS) {
      throw new LedgerStorageCorruptError(`redis:${route}`, `the bucket route holds \`${text}\``);
    }
    return at;
  }

  /** The bucket a key's route names, or null when no record was ever created with it. */
  async function routeOf(key: string): Promise<number | null> {
    const cached = known.get(key);
    if (cached !== undefined) return cached;
    const text = replyText(await send(['GET', keyRoute(key)]));
    if (text === null) return null;
    const at = bucketNamed(keyRoute(key), text);
    known.set(key, at);
    return at;
  }

  /** Write the routes of a record about to be created; a ticket already routed elsewhere is answered. */
  async function writeRoutes(record: TransitionRecord, at: number): Promise<number | null> {
    const routes: Promise<unknown>[] = [];
    if (known.get(record.key) !== at) routes.push(send(['SET', keyRoute(record.key), String(at)]));
    let ticketAt: Promise<unknown> = Promise.resolve(null);
    if (record.ticketKey !== null) ticketAt = send(['SET', ticketRoute(record.ticketKey), String(at), 'NX', 'GET']);
    const [, held] = await Promise.all([Promise.all(routes), ticketAt]);
    known.set(record.key, at);
    const text = replyText(held);
    if (text === null || record.ticketKey === null) return null;
    const routed = bucketNamed(ticketRoute(record.ticketKey), text);
    return routed === at ? null : routed;
  }

  async function findIn(at: number, ticketKey: string, ledgerId: string): Promise<TransitionRecord | null> {
    const where = bucket(at);
    const { keys, args } = ticketCommand(where, ticketKey, ledgerId);
    const reply = await scripts.run(client, FIND_BY_TICKET_SCRIPT, keys, args);
    return ticketOutcome(reply, where, ledgerId, (key) => locationOf(key, at));
  }

  return {
    hazards: async () => (await prepare()).hazards,
    identity: async () => (await prepare()).identity,

    async get(key: string): Promise<TransitionRecord | null> {
      try {
        ready('get');
        const at = await routeOf(key);
        if (at === null) return null;
        const hash = `${bucket(at).recordPrefix}${key}`;
        await gate.reading('get', hash, (args) => routing.sendTo(hash, args));
        const text = replyText(await send(['HGET', hash, 'doc']));
        return text === null ? null : decodeRecord(text, locationOf(key, at));
      } catch (error) {
        throw toStorageError('get', locationOf(key), error);
      }
    },

    async create(record: TransitionRecord): Promise<CreateResult> {
      const { key, ticketKey } = record;
      const at = bucketOf(record);
      const where = bucket(at);
      try {
        ready('create');
        const ledgerId = await ledgerIdOf();
        const elsewhere = await writeRoutes(record, at);
        if (elsewhere !== null && ticketKey !== null) {
          // Only a record built outside the ledger can hold a ticket key of another scope.
          const holder = await findIn(elsewhere, ticketKey, ledgerId);
          if (holder !== null) return { created: false, conflict: 'ticket', record: holder };
          throw new LedgerStorageCorruptError(
            `redis:${ticketRoute(ticketKey)}`,
            `the ticket is routed to bucket ${elsewhere}, which holds no record for it, and the record belongs in bucket ${at}`,
          );
        }
        const keys = createKeys(where, record);
        const doc = encodeRecord(record);
        const reply = await scripts.run(client, CREATE_RECORD_SCRIPT, keys, createArgs(where, record, doc, ledgerId));
        const outcome = createOutcome(reply, where, ledgerId, (held) => locationOf(held, at), key);
        if (outcome !== 'created') return outcome;
        await replicated('create', keys[0] as string);
        return createdResult(doc, locationOf(key, at));
      } catch (error) {
        throw toStorageError('create', locationOf(key, at), error);
      }
    },

    async update(key: string, expectedVersion: number, next: TransitionRecord): Promise<boolean> {
      const at = bucketOf(next);
      const where = bucket(at);
      try {
        ready('update');
        const ledgerId = await ledgerIdOf();
        let candidate = next;
        // At most two rounds: the stored ticket never changes, so a re-encoded record matches it.
        const keys = updateKeys(where, key);
        for (let round = 0; round < 2; round += 1) {
          const args = updateArgs(key, expectedVersion, candidate, encodeRecord(candidate), ledgerId);
          const outcome = updateOutcome(
            await scripts.run(client, SHARDED_UPDATE_RECORD_SCRIPT, keys, args),
            where,
            ledgerId,
          );
          if (outcome === true) {
            await replicated('update', keys[0] as string);
            return true;
          }
          if (outcome === false) return false;
          candidate = { ...candidate, ticketKey: outcome.ticketKey };
        }
        throw new TypeError('Unexpected reply from the Redis update script');
      } catch (error) {
        throw toStorageError('update', locationOf(key, at), error);
      }
    },

    async findByTicket(ticketKey: string): Promise<TransitionRecord | null> {
      try {
        ready('findByTicket');
        const ledgerId = await ledgerIdOf();
        const text = replyText(await send(['GET', ticketRoute(ticketKey)]));
        return text === null ? null : await findIn(bucketNamed(ticketRoute(ticketKey), text), ticketKey, ledgerId);
      } catch (error) {
        throw toStorageError('findByTicket', `redis:${ticketRoute(ticketKey)}`, error);
      }
    },

    async list(query: ListQuery = {}): Promise<ListPage> {
      // Validated before any I/O so a bad limit or cursor is a RangeError, not an unavailable store.
      const plan = planList(query);
      try {
        ready('list');
        const streams = buckets.map((each, at) => ({
          location: (key: string) => locationOf(key, at),
          run: (script: string, args: readonly string[]) => scripts.run(client, script, [each.index], args),
          recordPrefix: each.recordPrefix,
        }));
        return await listAcrossBuckets(plan, streams);
      } catch (error) {
        throw toStorageError('list', `redis:${prefix}`, error);
      }
    },

    watch(key: string, onChange: () => void): () => void {
      // The update script publishes on the record's hash name, which needs the key's bucket.
      const at = known.get(key);
      if (at !== undefined) return notices.watch(`${bucket(at).recordPrefix}${key}`, onChange);
      let stop: (() => void) | null = null;
      let stopped = false;
      routeOf(key).then(
        (found) => {
          if (found !== null && !stopped) stop = notices.watch(`${bucket(found).recordPrefix}${key}`, onChange);
        },
        () => undefined,
      );
      return () => {
        stopped = true;
        stop?.();
      };
    },

    close: () => notices.close(),
  };
}
