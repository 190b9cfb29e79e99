/**
 * How the Redis driver is asked to connect — a connected client of the caller's (node-redis, a
 * node-redis cluster, or ioredis through `fromIoredis`) or a URL — checked before anything is sent.
 */
import { InvalidOptionError } from '../../errors.js';
import {
  type ClusterRouting,
  clusterRoutingOf,
  fromNodeRedisCluster,
  looksLikeNodeRedisCluster,
  type RedisClusterLike,
} from './cluster.js';
import { borrowedConnection, ownedConnection, type RedisClientLike, type RedisConnection } from './connection.js';
import { looksLikeIoredis } from './ioredis.js';
import { ownedClusterConnection } from './owned-cluster.js';

/** How the Redis driver reaches the server: a connected client of yours, or a URL. */
export type RedisConnectionOptions =
  /**
   * A connected node-redis v5 client or cluster client (`createCluster`), or an ioredis client or
   * `Cluster` wrapped by `fromIoredis`; never closed by the storage.
   */
  | { readonly client: RedisClientLike | RedisClusterLike }
  /** A `redis://` URL; the storage loads `redis`, connects on first use and closes on `close()`. */
  | { readonly url: string }
  /**
   * The `redis://` URLs of one or more nodes of a Redis Cluster (the rest are discovered); the
   * storage loads `redis`, makes a cluster client (`createCluster`), connects on first use and
   * closes on `close()`. Credentials and TLS (`rediss://`) are read off the first URL.
   */
  | { readonly cluster: readonly string[] };

const NEEDS =
  'The Redis ledger storage needs a connected `client` (node-redis v5, or ioredis through `fromIoredis`), a `url` or the `cluster` URLs';

/** The client option, checked before anything is sent through it. */
function borrowedClient(client: unknown): RedisClientLike {
  if (looksLikeIoredis(client)) {
    throw new InvalidOptionError(
      'client',
      'The Redis ledger storage was given an ioredis client, whose `sendCommand` takes a command object: pass `fromIoredis(client)` from `hyphae/redis`',
    );
  }
  if (looksLikeNodeRedisCluster(client)) return fromNodeRedisCluster(client);
  if (typeof (client as Partial<RedisClientLike> | null)?.sendCommand !== 'function') {
    throw new InvalidOptionError('client', `${NEEDS}; its \`client\` has no \`sendCommand(args)\``);
  }
  return client as RedisClientLike;
}

/** The `cluster` option: a non-empty list of `redis://` or `rediss://` URLs. */
function clusterUrls(value: unknown): readonly string[] {
  const problem = (() => {
    if (!Array.isArray(value) || value.length === 0) return 'must be a non-empty list of `redis://` URLs';
    for (const [index, url] of value.entries()) {
      // The URL is not repeated in the message: it may carry a password.
      if (typeof url !== 'string' || !URL.canParse(url)) return `holds at ${index} something that is not a URL`;
      const { protocol } = new URL(url);
      if (protocol !== 'redis:' && protocol !== 'rediss:') {
        return `holds at ${index} a \`${protocol}\` URL where a \`redis://\` or \`rediss://\` one was expected`;
      }
    }
    return null;
  })();
  if (problem !== null)
    throw new InvalidOptionError('cluster', `The Redis ledger storage option \`cluster\` ${problem}`);
  return Object.freeze([...(value as string[])]);
}

/** The connection an option names (a client of the caller's, or one of ours from a URL) and its cluster, if any. */
export function connectionOf(connection: RedisConnectionOptions): {
  source: RedisConnection;
  cluster: { client: RedisClientLike; routing: ClusterRouting } | null;
} {
  if (typeof connection !== 'object' || connection === null) throw new InvalidOptionError('connection', NEEDS);
  if ('client' in connection) {
    const client = borrowedClient(connection.client);
    const routing = clusterRoutingOf(client);
    return { source: borrowedConnection(client), cluster: routing === null ? null : { client, routing } };
  }
  if ('cluster' in connection) {
    const { source, client, routing } = ownedClusterConnection(clusterUrls(connection.cluster));
    return { source, cluster: { client, routing } };
  }
  const { url } = connection as { url?: unknown };
  if (typeof url !== 'string' || url === '') throw new InvalidOptionError('url', NEEDS);
  return { source: ownedConnection(url), cluster: null };
}
