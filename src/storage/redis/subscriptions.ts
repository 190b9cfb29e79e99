/**
 * Change notices of the Redis driver: the update script publishes each write on the record's channel,
 * and a subscriber connection of the driver's own hands them to the ledger's pollers.
 *
 * Everything here is best effort. A subscriber that cannot connect, a subscription that fails or
 * a notice lost across a reconnect leaves the pollers to their timed polls; nothing here throws into
 * a ledger call or decides anything.
 */

/** The part of a node-redis v5 client the subscriber uses (a `duplicate()` of yours, or one of ours). */
export interface RedisSubscriberLike {
  readonly isOpen: boolean;
  connect(): Promise<unknown>;
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  /**
   * Optional: subscribe to a sharded channel (`SSUBSCRIBE`, Redis 7), on the node serving its slot.
   * The notices of a cluster are sharded; a subscriber without it hears none, and pollers poll.
   */
  sSubscribe?(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  /** Optional: the other half of {@link sSubscribe}. */
  sUnsubscribe?(channel: string): Promise<unknown>;
  close(): Promise<unknown>;
  destroy(): void;
  on(event: 'error', listener: (error: unknown) => void): unknown;
}

/** The driver's watches, over one subscriber connection opened at the first watch. */
export interface Subscriptions {
  /**
   * Call `onMessage` for every message on `channel` until the returned function is called, and once
   * as soon as the subscription is live (a message sent before that was not heard).
   */
  watch(channel: string, onMessage: () => void): () => void;
  /** Close the subscriber connection, if one was opened. */
  close(): Promise<void>;
}

const ignore = (): void => undefined;

/** Pause before subscribing again after the connection refused (down, or reconnecting). */
const RETRY_MS = 100;

/** How a subscriber connection subscribes to one channel and leaves it. */
interface ChannelVerbs {
  subscribe(channel: string, listener: (message: string, channel: string) => void): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
}

/** Plain or sharded subscriptions on `client`; null when it cannot make sharded ones. */
function verbsOf(client: RedisSubscriberLike, sharded: boolean): ChannelVerbs | null {
  if (!sharded) {
    return {
      subscribe: (channel, listener) => client.subscribe(channel, listener),
      unsubscribe: (channel) => client.unsubscribe(channel),
    };
  }
  const { sSubscribe, sUnsubscribe } = client;
  if (typeof sSubscribe !== 'function' || typeof sUnsubscribe !== 'function') return null;
  return {
    subscribe: (channel, listener) => sSubscribe.call(client, channel, listener),
    unsubscribe: (channel) => sUnsubscribe.call(client, channel),
  };
}

/**
 * Subscriptions over the connection `open` makes (null when this client cannot subscribe), to
 * plain channels, or to sharded ones (`SSUBSCRIBE`) when the notices are sharded (on a cluster).
 * Subscribing and unsubscribing run one at a time, each bringing the connection's channels in line
 * with the channels watched; a connection that failed or closed is opened again at the next change.
 */
export function createSubscriptions(
  open: () => Promise<RedisSubscriberLike | null>,
  { sharded = false }: { readonly sharded?: boolean } = {},
): Subscriptions {
  const listeners = new Map<string, Set<() => void>>();
  /** Channels `current` is subscribed to. */
  const subscribed = new Set<string>();
  let current: RedisSubscriberLike | null = null;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;

  function dispatch(_message: string, channel: string): void {
    const set = listeners.get(channel);
    if (set === undefined) return;
    for (const listener of [...set]) listener();
  }

  async function ready(): Promise<RedisSubscriberLike | null> {
    if (current?.isOpen === true) return current;
    // Never connected, or it gave up reconnecting: a new connection starts with no channels.
    current = null;
    subscribed.clear();
    const client = await open().catch(() => null);
    if (client === null) return null;
    if (closed) {
      await client.close().catch(ignore);
      return null;
    }
    current = client;
    return client;
  }

  /** Bring the connection's channels in line with the watched ones; false when it could not. */
  async function reconcile(): Promise<boolean> {
    if (closed) return true;
    const wanted = (channel: string): boolean => listeners.has(channel);
    if ([...listeners.keys()].every((channel) => subscribed.has(channel)) && [...subscribed].every(wanted)) return true;
    const client = await ready();
    if (client === null) return false;
    const verbs = verbsOf(client, sharded);
    // A subscriber that cannot hear sharded notices: nothing to subscribe to, pollers poll.
    if (verbs === null) return true;
    for (const channel of [...listeners.keys()]) {
      if (subscribed.has(channel)) continue;
      await verbs.subscribe(channel, dispatch);
      subscribed.add(channel);
      // A write published before the subscription was live is lost: tell the watchers to look now.
      dispatch('', channel);
    }
    for (const channel of [...subscribed]) {
      if (wanted(channel)) continue;
      subscribed.delete(channel);
      await verbs.unsubscribe(channel);
    }
    return true;
  }

  let retry: ReturnType<typeof setTimeout> | null = null;
  const change = (): void => {
    queue = queue
      .then(reconcile)
      .catch(() => false)
      .then((done) => {
        // A connection that is down or reconnecting refused: try again shortly while anyone watches.
        if (done || closed || retry !== null || listeners.size === 0) return;
        retry = setTimeout(() => {
          retry = null;
          change();
        }, RETRY_MS);
        retry.unref();
      });
  };

  return {
    watch(channel, onMessage) {
      if (closed) return ignore;
      let set = listeners.get(channel);
      if (set === undefined) {
        set = new Set();
        listeners.set(channel, set);
        change();
      } else if (subscribed.has(channel)) {
        // Live already: this watcher's first notice (look now) comes at once.
        queueMicrotask(() => {
          if (registered.has(onMessage)) onMessage();
        });
      }
      set.add(onMessage);
      const registered = set;
      return () => {
        if (!registered.delete(onMessage) || registered.size > 0 || listeners.get(channel) !== registered) return;
        listeners.delete(channel);
        change();
      };
    },
    async close() {
      if (closed) return;
      closed = true;
      listeners.clear();
      if (retry !== null) clearTimeout(retry);
      await queue;
      const client = current;
      current = null;
      if (client?.isOpen === true) await client.close().catch(() => client.destroy());
    },
  };
}
