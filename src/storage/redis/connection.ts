/**
 * The Redis driver's connection: a caller's client or one created lazily from a URL, scripts run
 * with EVALSHA, and errors translated into the ledger's storage errors.
 */
import { createHash } from 'node:crypto';
import { GuardError, LedgerStorageCorruptError, LedgerStorageUnavailableError } from '../../errors.js';
import { importPeerDependency } from '../../peer-dependency.js';
import type { RedisSubscriberLike } from './subscriptions.js';

/**
 * The part of a Redis client the driver uses: node-redis v5 clients (`createClient()`) fit it.
 *
 * ioredis does not (its `sendCommand` takes a command object); wrap it in an object whose
 * `sendCommand(args)` calls `client.call(...args)` if you must use it.
 */
export interface RedisClientLike {
  /** Send one command, given as its arguments (`['HGET', key, field]`), and resolve with the reply. */
  sendCommand(args: readonly string[]): Promise<unknown>;
  /**
   * Optional: a new, unconnected client with the same options (node-redis `duplicate()`). The
   * storage connects it to receive change notices for pollers and closes it on `close()`; without
   * it, pollers over this storage poll on their interval.
   */
  duplicate?(): RedisSubscriberLike;
}

/** A node-redis client the driver created and therefore owns. */
interface OwnedRedisClient extends RedisClientLike, RedisSubscriberLike {
  close(): Promise<void>;
}

/** The part of the `redis` module the driver uses. */
export interface RedisModuleLike {
  createClient(options: {
    url: string;
    disableOfflineQueue: boolean;
    socket: { connectTimeout: number; reconnectStrategy: (retries: number, cause: unknown) => number | false };
  }): OwnedRedisClient;
}

/** Hands out a ready client and releases it on close. */
export interface RedisConnection {
  /** The ready client: at once when there is one, else once it has connected. */
  client(operation: string): RedisClientLike | Promise<RedisClientLike>;
  /** A new connected client for change notices, which the caller closes; null when there can be none. */
  openSubscriber(): Promise<RedisSubscriberLike | null>;
  close(): Promise<void>;
}

/**
 * Connect a client whose errors are heard: node-redis emits connection errors as events and an
 * unheard 'error' event crashes the process; each failed operation reports its own error instead.
 */
export async function connectHeard<C extends Pick<RedisSubscriberLike, 'isOpen' | 'connect' | 'destroy' | 'on'>>(
  client: C,
): Promise<C> {
  client.on('error', () => {});
  try {
    await client.connect();
  } catch (cause) {
    // A connect timeout can leave the socket open; a refused one has already closed the client.
    if (client.isOpen) client.destroy();
    throw cause;
  }
  return client;
}

const closedError = (): Error => new Error('Redis ledger storage is closed');

/** A connection around a client the caller passed: used as is, never closed by us. */
export function borrowedConnection(client: RedisClientLike): RedisConnection {
  let closed = false;
  return {
    client(operation) {
      if (closed) return Promise.reject(new LedgerStorageUnavailableError(operation, { cause: closedError() }));
      return client;
    },
    async openSubscriber() {
      if (closed || typeof client.duplicate !== 'function') return null;
      return connectHeard(client.duplicate());
    },
    async close() {
      closed = true;
    },
  };
}

function importRedis(): Promise<RedisModuleLike> {
  return import('redis');
}

/**
 * Load the `redis` module, or fail with `missing_peer_dependency`.
 *
 * @param importModule replaces the dynamic import (tests use it to simulate a missing package).
 */
export async function loadRedis(importModule: () => Promise<RedisModuleLike> = importRedis): Promise<RedisModuleLike> {
  return importPeerDependency(importModule, 'redis', 'The Redis ledger storage', 'to connect by `url`');
}

// A few quick reconnection attempts (none after a connect timeout), then the client gives up and
// the next operation builds a new one: a ledger must hear "unavailable" promptly rather than wait.
const reconnectStrategy = (retries: number, cause: unknown): number | false =>
  retries < 3 && !(cause instanceof Error && cause.constructor.name === 'ConnectionTimeoutError')
    ? 50 * 2 ** retries
    : false;

/**
 * A connection that creates its own node-redis client from `url` on first use and closes it.
 *
 * @param importModule replaces the dynamic import of `redis` (tests use it to watch the client).
 */
export function ownedConnection(
  url: string,
  importModule: () => Promise<RedisModuleLike> = importRedis,
): RedisConnection {
  let pending: Promise<OwnedRedisClient> | null = null;
  /** The client `pending` resolved to, for handing out without a wait while it stays open. */
  let ready: OwnedRedisClient | null = null;
  let closed = false;

  async function create(): Promise<OwnedRedisClient> {
    const redis = await loadRedis(importModule);
    return redis.createClient({
      url,
      disableOfflineQueue: true,
      socket: { connectTimeout: 5000, reconnectStrategy },
    });
  }

  async function open(): Promise<OwnedRedisClient> {
    const client = await connectHeard(await create());
    // close() ran while we connected and may have missed this client: it must not outlive it.
    if (closed) {
      await client.close();
      throw closedError();
    }
    return client;
  }

  async function connected(operation: string): Promise<OwnedRedisClient> {
    const previous = pending;
    if (previous !== null) {
      const current = await previous.catch(() => null);
      if (closed) throw new LedgerStorageUnavailableError(operation, { cause: closedError() });
      if (current?.isOpen === true) {
        if (pending === previous) ready = current;
        return current;
      }
      // It failed to connect or gave up reconnecting: the first caller to notice opens anew.
      if (pending === previous) pending = null;
    }
    pending ??= open();
    const opening = pending;
    try {
      const client = await opening;
      if (pending === opening) ready = client;
      return client;
    } catch (cause) {
      if (pending === opening) pending = null;
      throw toStorageError(operation, 'redis', cause);
    }
  }

  return {
    client(operation) {
      if (closed) return Promise.reject(new LedgerStorageUnavailableError(operation, { cause: closedError() }));
      if (ready?.isOpen === true) return ready;
      ready = null;
      return connected(operation);
    },
    async openSubscriber() {
      if (closed) return null;
      return connectHeard(await create());
    },
    async close() {
      if (closed) return;
      closed = true;
      ready = null;
      const current = await pending?.catch(() => null);
      pending = null;
      if (current?.isOpen === true) await current.close();
    },
  };
}

/** True for the server's reply to EVALSHA of a script it does not hold. */
function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

/** Runs the driver's scripts on one client, loading each again when the server has lost it. */
export interface ScriptRunner {
  run(client: RedisClientLike, script: string, keys: readonly string[], args: readonly string[]): Promise<unknown>;
  /** The SHA1 that names `script` in EVALSHA. */
  sha(script: string): string;
  /**
   * Send an EVALSHA `command` already built for `script` (`['EVALSHA', sha, numkeys, ...keys, ...args]`);
   * the hot paths build their command in one array rather than in several.
   */
  send(client: RedisClientLike, script: string, command: readonly string[]): Promise<unknown>;
}

/** A script runner that remembers each script's SHA1. */
export function createScriptRunner(): ScriptRunner {
  const shas = new Map<string, string>();
  const sha = (script: string): string => {
    let known = shas.get(script);
    if (known === undefined) {
      known = createHash('sha1').update(script).digest('hex');
      shas.set(script, known);
    }
    return known;
  };
  // After SCRIPT FLUSH, a restart or a failover the server no longer knows the script: load it
  // again and retry once (the script did not run, so the retry cannot double a write).
  async function reloadAndRetry(
    client: RedisClientLike,
    script: string,
    command: readonly string[],
    error: unknown,
  ): Promise<unknown> {
    if (!isNoScript(error)) throw error;
    await client.sendCommand(['SCRIPT', 'LOAD', script]);
    return await client.sendCommand(command);
  }
  const send = (client: RedisClientLike, script: string, command: readonly string[]): Promise<unknown> =>
    client.sendCommand(command).catch((error: unknown) => reloadAndRetry(client, script, command, error));
  return {
    sha,
    send,
    run(client, script, keys, args) {
      const command = ['EVALSHA', sha(script), String(keys.length)];
      for (const key of keys) command.push(key);
      for (const arg of args) command.push(arg);
      return send(client, script, command);
    },
  };
}

/**
 * Translate an error from the client or server: our own errors pass through, a key holding the
 * wrong type means the store cannot be trusted, anything else means the store did not answer.
 */
export function toStorageError(operation: string, location: string, error: unknown): Error {
  if (error instanceof GuardError) return error;
  if (error instanceof Error && error.message.startsWith('WRONGTYPE')) {
    return new LedgerStorageCorruptError(location, 'a key holds a value of the wrong type', { cause: error });
  }
  return new LedgerStorageUnavailableError(operation, { cause: error });
}

/** A bulk-string reply as text; null for a nil reply. */
export function replyText(reply: unknown): string | null {
  if (reply === null || reply === undefined || reply === false) return null;
  if (typeof reply === 'string') return reply;
  if (reply instanceof Uint8Array) return Buffer.from(reply).toString('utf8');
  throw new TypeError(`Unexpected Redis reply \`${typeof reply}\` where a string was expected`);
}

/** An array reply; anything else is a protocol surprise. */
export function replyArray(reply: unknown): readonly unknown[] {
  if (Array.isArray(reply)) return reply;
  throw new TypeError(`Unexpected Redis reply \`${typeof reply}\` where an array was expected`);
}
