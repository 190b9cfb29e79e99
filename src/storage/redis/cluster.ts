/**
 * Redis Cluster clients behind the driver: a node-redis cluster (`createCluster`) or an ioredis
 * `Cluster` (through `fromIoredis`) seen as one routed client, and the slots the cluster layout uses.
 */
import { createHash } from 'node:crypto';
import type { RedisClientLike } from './connection.js';
import type { RedisSubscriberLike } from './subscriptions.js';

/** A node of a node-redis cluster, as `createCluster().masters` lists it. */
export interface RedisClusterNodeLike {
  readonly address: string;
}

/**
 * The part of a node-redis v5 cluster client (`createCluster()`) the driver uses; typed
 * structurally so no `redis` types reach your declarations.
 */
export interface RedisClusterLike {
  /** Send one command to the node serving `firstKey` (any node when it is undefined). */
  sendCommand(firstKey: string | undefined, isReadonly: boolean | undefined, args: string[]): Promise<unknown>;
  /** The cluster's masters, for the checks every master must pass (`maxmemory-policy`, script loads). */
  readonly masters: readonly RedisClusterNodeLike[];
  /** The connected client of one node. */
  nodeClient(node: RedisClusterNodeLike): Promise<RedisClientLike>;
  /** Optional: a new, unconnected cluster client with the same options, for change notices. */
  duplicate?(): RedisSubscriberLike;
}

/** What the driver needs of a cluster beyond a routed `sendCommand`. */
export interface ClusterRouting {
  /** One client per master, for the checks each must pass. */
  masters(): Promise<readonly RedisClientLike[]>;
  /** Send `args` to the master serving `key`, on the connection that carried its last write. */
  sendTo(key: string, args: readonly string[]): Promise<unknown>;
}

/** Where a client adapted by this module keeps its cluster routing. */
export const CLUSTER_ROUTING: unique symbol = Symbol('hyphae.redisClusterRouting');

/** A client whose `sendCommand` routes by key, with the cluster's masters at hand. */
export interface ClusterClient extends RedisClientLike {
  readonly [CLUSTER_ROUTING]: ClusterRouting;
}

/** True for a node-redis cluster client (`createCluster()`). */
export function looksLikeNodeRedisCluster(value: unknown): value is RedisClusterLike {
  const client = value as Partial<RedisClusterLike> | null;
  return (
    typeof client === 'object' &&
    client !== null &&
    typeof client.sendCommand === 'function' &&
    typeof client.nodeClient === 'function' &&
    Array.isArray(client.masters)
  );
}

/** The routing of a client adapted from a cluster, or null for a single-node client. */
export function clusterRoutingOf(client: RedisClientLike): ClusterRouting | null {
  return (client as Partial<ClusterClient>)[CLUSTER_ROUTING] ?? null;
}

/** The key a command is routed by: the first of an EVALSHA's keys, else its first argument. */
function routingKey(args: readonly string[]): string | undefined {
  const name = args[0]?.toUpperCase();
  if (name === 'EVALSHA' || name === 'EVAL') return Number(args[2]) > 0 ? args[3] : undefined;
  return args[1];
}

/**
 * Send a command to every master and answer with the first reply: `SCRIPT LOAD` after a
 * `NOSCRIPT` (a promoted replica, a restarted master) must reach the node that refused.
 */
async function everyMaster(routing: ClusterRouting, args: readonly string[]): Promise<unknown> {
  const replies = await Promise.all((await routing.masters()).map((client) => client.sendCommand(args)));
  return replies[0] ?? null;
}

/** A node-redis cluster client seen as one routed client. */
export function fromNodeRedisCluster(cluster: RedisClusterLike): ClusterClient {
  const routing: ClusterRouting = {
    masters: () => Promise.all(cluster.masters.map((node) => cluster.nodeClient(node))),
    sendTo: (key, args) => cluster.sendCommand(key, false, [...args]),
  };
  const client: ClusterClient = {
    [CLUSTER_ROUTING]: routing,
    sendCommand(args) {
      if (args[0]?.toUpperCase() === 'SCRIPT') return everyMaster(routing, args);
      return cluster.sendCommand(routingKey(args), false, [...args]);
    },
  };
  const duplicate = cluster.duplicate;
  if (typeof duplicate === 'function') return { ...client, duplicate: () => duplicate.call(cluster) };
  return client;
}

/** A routed client over an ioredis `Cluster` (see `fromIoredis`). */
export function routedClient(
  send: (args: readonly string[]) => Promise<unknown>,
  routing: ClusterRouting,
  duplicate: () => RedisSubscriberLike,
): ClusterClient {
  return {
    [CLUSTER_ROUTING]: routing,
    sendCommand: (args) => (args[0]?.toUpperCase() === 'SCRIPT' ? everyMaster(routing, args) : send(args)),
    duplicate,
  };
}

// ---------------------------------------------------------------------------------------------
// Slots

/** CRC16/XMODEM, the checksum Redis Cluster hashes keys with. */
function crc16(text: string): number {
  let crc = 0;
  for (const byte of Buffer.from(text, 'utf8')) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit += 1) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The cluster slot of a key: of its hash tag (the text between the first `{` and the next `}`) when non-empty. */
export function keySlot(key: string): number {
  const open = key.indexOf('{');
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % 16384;
  }
  return crc16(key) % 16384;
}

/** True when `prefix` holds a hash tag, which pins every key of the ledger to one slot. */
export function hasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  return open !== -1 && prefix.indexOf('}', open + 1) > open + 1;
}

/**
 * Buckets of the cluster layout. Each has a hash tag of its own whose slot lies in its own 1/64th
 * of the slot space, so the buckets spread over the masters however the slots are split. Part of
 * the layout: a ledger written with one count cannot be read with another.
 */
export const BUCKETS = 64;

/** The hash tag of each bucket: the first `h<n>` whose slot falls in the bucket's range. */
export const BUCKET_TAGS: readonly string[] = (() => {
  const tags: string[] = new Array<string>(BUCKETS).fill('');
  let filled = 0;
  for (let n = 0; filled < BUCKETS; n += 1) {
    const tag = `h${n}`;
    const bucket = Math.floor(keySlot(tag) / (16384 / BUCKETS));
    if (tags[bucket] === '') {
      tags[bucket] = tag;
      filled += 1;
    }
  }
  return tags;
})();

/** What the bucket of a record is made of: the fields the ticket key and the transition key both hash. */
export interface BucketScope {
  readonly agentId: string;
  readonly scope: { readonly threadId?: string; readonly runId?: string };
}

/**
 * The bucket of a record: a hash of its agent, thread and run. The transition key hashes them (with
 * the tool, arguments and node), and so does the ticket key (with the ticket): one key, or one
 * ticket, always lands in one bucket, so the create script checks both in one slot.
 */
export function bucketOf(record: BucketScope): number {
  const text = JSON.stringify([record.agentId, record.scope.threadId ?? null, record.scope.runId ?? null]);
  return createHash('sha256').update(text).digest().readUInt32BE(0) % BUCKETS;
}
