/**
 * A Redis Cluster connection the driver owns: a node-redis cluster client (`createCluster`) made
 * from seed URLs, connected at the first operation, closed by `close()`.
 */
import { LedgerStorageUnavailableError } from '../../errors.js';
import { importPeerDependency } from '../../peer-dependency.js';
import {
  CLUSTER_ROUTING,
  type ClusterClient,
  type ClusterRouting,
  clusterRoutingOf,
  fromNodeRedisCluster,
  type RedisClusterLike,
} from './cluster.js';
import { connectHeard, type RedisConnection, toStorageError } from './connection.js';
import type { RedisSubscriberLike } from './subscriptions.js';

/** A node-redis cluster client the driver created and therefore owns. */
interface OwnedCluster extends RedisClusterLike {
  readonly isOpen: boolean;
  on(event: 'error', listener: (error: unknown) => void): unknown;
  connect(): Promise<unknown>;
  close(): Promise<void>;
  destroy(): void;
  duplicate(): RedisSubscriberLike;
}

/** The options the driver gives `createCluster`. */
interface ClusterOptions {
  rootNodes: { url: string }[];
  defaults: {
    username?: string;
    password?: string;
    disableOfflineQueue: boolean;
    socket: { connectTimeout: number; tls?: true; reconnectStrategy: (retries: number) => number };
  };
}

/** The part of the `redis` module an owned cluster uses. */
export interface RedisClusterModuleLike {
  createCluster(options: ClusterOptions): OwnedCluster;
}

// A node that drops is reconnected with a capped backoff and never given up on: the cluster client
// reroutes by slot, and with the offline queue off a command to a node that is down fails at once.
const reconnectStrategy = (retries: number): number => Math.min(50 * 2 ** retries, 2000);

/**
 * The options every node connection gets. node-redis takes credentials and TLS for the discovered
 * nodes from `defaults`, not from the seed URLs, so they are read off the first URL.
 */
export function clusterOptions(urls: readonly string[]): ClusterOptions {
  const first = new URL(urls[0] as string);
  const username = decodeURIComponent(first.username);
  const password = decodeURIComponent(first.password);
  return {
    rootNodes: urls.map((url) => ({ url })),
    defaults: {
      ...(username === '' ? {} : { username }),
      ...(password === '' ? {} : { password }),
      disableOfflineQueue: true,
      socket: { connectTimeout: 5000, ...(first.protocol === 'rediss:' ? { tls: true } : {}), reconnectStrategy },
    },
  };
}

/**
 * A connection to the cluster `urls` seed, and the routed client the cluster layout runs on. The
 * cluster client is made and connected at the first command; one that fails to connect is
 * dropped, so the next command tries again.
 *
 * @param importModule replaces the dynamic import of `redis` (tests use it to watch the client).
 */
export function ownedClusterConnection(
  urls: readonly string[],
  importModule: () => Promise<RedisClusterModuleLike> = () => import('redis'),
): { source: RedisConnection; client: ClusterClient; routing: ClusterRouting } {
  let pending: Promise<{ cluster: OwnedCluster; routed: ClusterClient }> | null = null;
  let current: OwnedCluster | null = null;
  let closed = false;

  async function open(): Promise<{ cluster: OwnedCluster; routed: ClusterClient }> {
    const redis = await importPeerDependency(
      importModule,
      'redis',
      'The Redis ledger storage',
      'to connect to the `cluster` URLs',
    );
    const cluster = await connectHeard(redis.createCluster(clusterOptions(urls)));
    if (closed) {
      await cluster.close();
      throw new Error('Redis ledger storage is closed');
    }
    current = cluster;
    return { cluster, routed: fromNodeRedisCluster(cluster) };
  }

  async function routed(operation: string): Promise<ClusterClient> {
    if (closed)
      throw new LedgerStorageUnavailableError(operation, { cause: new Error('Redis ledger storage is closed') });
    pending ??= open();
    const opening = pending;
    try {
      return (await opening).routed;
    } catch (cause) {
      if (pending === opening) pending = null;
      throw toStorageError(operation, 'redis', cause);
    }
  }

  const routing: ClusterRouting = {
    masters: async () => (clusterRoutingOf(await routed('connect')) as ClusterRouting).masters(),
    sendTo: async (key, args) => (clusterRoutingOf(await routed('send')) as ClusterRouting).sendTo(key, args),
  };
  const client: ClusterClient = {
    [CLUSTER_ROUTING]: routing,
    sendCommand: async (args) => (await routed('send')).sendCommand(args),
    // Watches start after an operation has connected the cluster; before that there is nothing to duplicate.
    duplicate() {
      if (current === null || closed) throw new Error('The Redis Cluster client is not connected');
      return current.duplicate();
    },
  };
  const source: RedisConnection = {
    client: (operation) => routed(operation),
    async openSubscriber() {
      if (closed || current === null) return null;
      return connectHeard(current.duplicate());
    },
    async close() {
      if (closed) return;
      closed = true;
      const opened = await pending?.catch(() => null);
      pending = null;
      current = null;
      if (opened?.cluster.isOpen === true) await opened.cluster.close();
    },
  };
  return { source, client, routing };
}
