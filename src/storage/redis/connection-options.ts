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

/** How the Redis driver reaches the server: a connected client of yours, or a URL. */
export type RedisConnectionOptions =
  /**
   * A connected node-redis v5 client or cluster client (`createCluster`), or an ioredis client or
   * `Cluster` wrapped by `fromIoredis`; never closed by the storage.
   */
  | { readonly client: RedisClientLike | RedisClusterLike }
  /** A `redis://` URL; the storage loads `redis`, connects on first use and closes on `close()`. */
  | { readonly url: string };

const NEEDS =
  'The Redis ledger storage needs a connected `client` (node-redis v5, or ioredis through `fromIoredis`) or a `url`';

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
  const { url } = connection as { url?: unknown };
  if (typeof url !== 'string' || url === '') throw new InvalidOptionError('url', NEEDS);
  return { source: ownedConnection(url), cluster: null };
}
