/**
 * ioredis clients behind the driver's structural client: `fromIoredis(client)` sends every command
 * through `client.call(...)` and subscribes for change notices on a `duplicate()` of the client.
 */
import { InvalidOptionError } from '../../errors.js';
import { recordArgument } from '../../invalid-argument.js';
import { type ClusterClient, keySlot, routedClient } from './cluster.js';
import type { RedisClientLike } from './connection.js';
import type { RedisSubscriberLike } from './subscriptions.js';

/**
 * The part of an ioredis client (v5 or v6, `new Redis(...)`) the adapter uses; typed structurally so
 * no `ioredis` types reach your declarations.
 */
export interface IoredisLike {
  /** Connection state: `wait`, `connecting`, `connect`, `ready`, `reconnecting`, `close` or `end`. */
  readonly status: string;
  /** Send one command by name with its arguments, and resolve with the reply. */
  call(command: string, args: string[]): Promise<unknown>;
  /** A new client with the same options; the adapter passes `{ lazyConnect: true }` and connects it. */
  duplicate(override: { lazyConnect: boolean }): IoredisSubscriberLike;
  /** The client's options; a `keyPrefix` is refused (see {@link fromIoredis}). */
  readonly options?: { readonly keyPrefix?: string | undefined };
}

/**
 * The part of an ioredis `Cluster` (v5 or v6, `new Cluster([...])`) the adapter uses. Commands go
 * through `call(...)`, which routes them by key; `nodes('master')` and `slots` reach the master
 * of a key for what must run there (script loads, `WAIT`).
 */
export interface IoredisClusterLike {
  readonly isCluster: boolean;
  readonly status: string;
  call(command: string, args: string[]): Promise<unknown>;
  /**
   * A new cluster client; the adapter passes no startup nodes (the same ones) and
   * `{ lazyConnect: true, shardedSubscribers: true }` (the notices of a cluster are sharded).
   */
  duplicate(
    startupNodes: never[],
    override: { lazyConnect: boolean; shardedSubscribers: boolean },
  ): IoredisSubscriberLike;
  /** The master clients the cluster sends its commands through. */
  nodes(role: 'master'): readonly IoredisNodeLike[];
  /** For each slot, the `host:port` of its master first. */
  readonly slots: readonly (readonly string[] | undefined)[];
  readonly options?: { readonly keyPrefix?: string | undefined };
}

/** A master of an ioredis `Cluster`. */
export interface IoredisNodeLike {
  readonly options: { readonly host?: string | undefined; readonly port?: number | undefined };
  call(command: string, args: string[]): Promise<unknown>;
}

/** The part of an ioredis client a subscriber connection uses. */
export interface IoredisSubscriberLike {
  readonly status: string;
  connect(): Promise<unknown>;
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  /** Sharded subscriptions (ioredis 5.4 and later); without them a cluster's notices are not heard. */
  ssubscribe?(channel: string): Promise<unknown>;
  sunsubscribe?(channel: string): Promise<unknown>;
  quit(): Promise<unknown>;
  disconnect(): void;
  on(event: 'message' | 'smessage', listener: (channel: string, message: string) => void): unknown;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

/** True when `value` is an ioredis client passed where a node-redis one was expected. */
export function looksLikeIoredis(value: unknown): boolean {
  const client = value as Partial<IoredisLike> | null;
  return (
    typeof client === 'object' &&
    client !== null &&
    typeof client.call === 'function' &&
    typeof client.status === 'string' &&
    typeof client.duplicate === 'function'
  );
}

/**
 * A subscriber over an ioredis client: one `message` and one `smessage` (sharded) listener hand each
 * message to the listener of its channel. ioredis resubscribes by itself after a reconnect
 * (`autoResubscribe`, on by default), so the connection counts as open until it has ended.
 */
function ioredisSubscriber(client: IoredisSubscriberLike): RedisSubscriberLike {
  const listeners = new Map<string, (message: string, channel: string) => void>();
  const deliver = (channel: string, message: string): void => {
    listeners.get(channel)?.(message, channel);
  };
  client.on('message', deliver);
  client.on('smessage', deliver);
  const listen =
    (send: (channel: string) => Promise<unknown>) =>
    async (channel: string, listener: (message: string, channel: string) => void): Promise<unknown> => {
      listeners.set(channel, listener);
      try {
        return await send(channel);
      } catch (error) {
        listeners.delete(channel);
        throw error;
      }
    };
  const leave = (send: (channel: string) => Promise<unknown>) => (channel: string) => {
    listeners.delete(channel);
    return send(channel);
  };
  const { ssubscribe, sunsubscribe } = client;
  const sharded =
    typeof ssubscribe === 'function' && typeof sunsubscribe === 'function'
      ? {
          sSubscribe: listen((channel) => ssubscribe.call(client, channel)),
          sUnsubscribe: leave((channel) => sunsubscribe.call(client, channel)),
        }
      : {};
  return {
    get isOpen() {
      return client.status !== 'end' && client.status !== 'wait';
    },
    connect: () => client.connect(),
    subscribe: listen((channel) => client.subscribe(channel)),
    unsubscribe: leave((channel) => client.unsubscribe(channel)),
    ...sharded,
    close: () => client.quit(),
    destroy: () => client.disconnect(),
    on: (_event, listener) => client.on('error', listener),
  };
}

/**
 * Adapt a connected ioredis client to the Redis driver. The storage never closes it; the subscriber
 * connection it opens for change notices (a `duplicate()`) it closes on `close()`.
 *
 * ioredis's defaults keep a command waiting through up to 20 reconnection attempts and send it again
 * after a reconnect. The ledger stays safe with them (a create or compare-and-set sent twice writes
 * at most once), but a claim then waits for the server instead of failing fast; for prompt
 * `LedgerStorageUnavailableError`s give the client `maxRetriesPerRequest: 1` or
 * `enableOfflineQueue: false`. A client with a `keyPrefix` is refused: put the prefix in the
 * storage's `prefix` setting.
 *
 * @example
 * import { Redis } from 'ioredis';
 * import { createRedisStorage, fromIoredis } from 'hyphae/redis';
 *
 * const client = new Redis('redis://127.0.0.1:6379', { maxRetriesPerRequest: 1 });
 * const storage = createRedisStorage({ client: fromIoredis(client) }, { prefix: 'payments:' });
 */
export function fromIoredis(client: IoredisLike | IoredisClusterLike): RedisClientLike {
  recordArgument('fromIoredis', 'client', client, ['options']);
  const keyPrefix = client.options?.keyPrefix;
  if (typeof keyPrefix === 'string' && keyPrefix !== '') {
    // ioredis would prefix the scripts' KEYS but not the key names they build from ARGV, nor the
    // channels notices go out on: the ticket index, list pages and notices would miss their records.
    throw new InvalidOptionError(
      'client',
      `The Redis ledger storage cannot use an ioredis client with \`keyPrefix\` (\`${keyPrefix}\`): give the storage \`{ prefix }\` instead`,
    );
  }
  if ('isCluster' in client && client.isCluster === true) return fromIoredisCluster(client);
  const single = client as IoredisLike;
  return {
    sendCommand: (args) => single.call(args[0] as string, args.slice(1)),
    duplicate: () => ioredisSubscriber(single.duplicate({ lazyConnect: true })),
  };
}

/** An ioredis `Cluster` as one routed client: `call` routes by key, the rest goes to masters. */
function fromIoredisCluster(cluster: IoredisClusterLike): ClusterClient {
  const send = (node: IoredisNodeLike | IoredisClusterLike, args: readonly string[]): Promise<unknown> =>
    node.call(args[0] as string, args.slice(1));
  const masterOf = (key: string): IoredisNodeLike => {
    const address = cluster.slots[keySlot(key)]?.[0];
    const node = cluster.nodes('master').find((each) => `${each.options.host}:${each.options.port}` === address);
    if (node === undefined) throw new Error(`No master of the ioredis cluster serves the slot of \`${key}\``);
    return node;
  };
  return routedClient(
    (args) => send(cluster, args),
    {
      masters: async () => cluster.nodes('master').map((node) => ({ sendCommand: (args) => send(node, args) })),
      sendTo: async (key, args) => send(masterOf(key), args),
    },
    () => ioredisSubscriber(cluster.duplicate([], { lazyConnect: true, shardedSubscribers: true })),
  );
}
