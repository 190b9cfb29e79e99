/**
 * `@aws-lambda-powertools/idempotency` on Redis outside Lambda: `makeIdempotent` over its cache
 * persistence layer with a node-redis client, and a Lambda context whose remaining time never runs
 * out. Also the commands it sends per call (through a recording client) and those commands sent
 * bare, as its raw baseline.
 *
 * What the cache persistence layer sends (2.35.0, `CachePersistenceLayer`):
 *   first call = SET key INPROGRESS EX ttl NX; run the function; SET key COMPLETED EX ttl
 *   replay     = SET key … NX (refused); GET key; return the stored response
 */
import { IdempotencyConfig, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { CachePersistenceLayer } from '@aws-lambda-powertools/idempotency/cache';
import type { CacheClient } from '@aws-lambda-powertools/idempotency/cache/types';
import type { BenchRedisClient } from './redis-bench-client.js';

/** A Lambda context as far as the idempotency utility reads it. */
const FAKE_LAMBDA_CONTEXT = {
  functionName: 'hyphae-bench',
  awsRequestId: 'bench',
  getRemainingTimeInMillis: () => 15 * 60 * 1000,
};

/**
 * `fn` made idempotent on its own persistence layer over `client`, keys under `keyPrefix`. The
 * payload is hashed whole (no JMESPath) into the idempotency key; no local cache, as by default.
 */
export function powertoolsIdempotent<P extends object, R>(
  client: CacheClient,
  keyPrefix: string,
  fn: (payload: P) => Promise<R>,
): (payload: P) => Promise<R> {
  const config = new IdempotencyConfig({});
  config.registerLambdaContext(FAKE_LAMBDA_CONTEXT as Parameters<IdempotencyConfig['registerLambdaContext']>[0]);
  const persistenceStore = new CachePersistenceLayer({ client });
  return makeIdempotent(fn, { persistenceStore, config, keyPrefix });
}

/** One cache command the persistence layer sent. */
export interface CacheCommand {
  readonly command: 'get' | 'set' | 'del';
  readonly key: string;
  readonly value?: string;
  readonly options?: { readonly EX?: number; readonly NX?: boolean };
  readonly reply?: unknown;
}

/** A client that forwards to `client` and records every command, for counting round trips. */
export function recordingCacheClient(client: BenchRedisClient): { client: CacheClient; commands: CacheCommand[] } {
  const commands: CacheCommand[] = [];
  return {
    commands,
    client: {
      async get(name) {
        const reply = await client.get(name);
        commands.push({ command: 'get', key: name, reply });
        return reply;
      },
      async set(name, value, options) {
        const opts = (options ?? {}) as { EX?: number; NX?: boolean };
        const reply = await client.set(String(name), String(value), opts);
        commands.push({ command: 'set', key: String(name), value: String(value), options: opts, reply });
        return reply;
      },
      async del(keys) {
        const reply = await client.del(keys);
        commands.push({ command: 'del', key: keys.join(' '), reply });
        return reply;
      },
    },
  };
}

/** The commands `recorded` sent, sent again back to back through `client` with `key` in place of theirs. */
export async function sendCommands(
  client: BenchRedisClient,
  recorded: readonly CacheCommand[],
  key: string,
): Promise<unknown[]> {
  const replies: unknown[] = [];
  for (const command of recorded) {
    if (command.command === 'get') replies.push(await client.get(key));
    else if (command.command === 'del') replies.push(await client.del([key]));
    else replies.push(await client.set(key, command.value ?? '', { ...command.options }));
  }
  return replies;
}

/** Describe a command sequence for the report: `SET NX EX → OK, SET EX → OK`. */
export function describeCommands(recorded: readonly CacheCommand[]): string {
  return recorded
    .map((command) => {
      const flags = [command.options?.NX ? 'NX' : '', command.options?.EX !== undefined ? 'EX' : '']
        .filter(Boolean)
        .join(' ');
      const reply = command.reply === null ? 'nil' : typeof command.reply === 'string' ? command.reply : 'reply';
      return `${command.command.toUpperCase()}${flags === '' ? '' : ` ${flags}`} → ${command.command === 'get' && reply !== 'nil' ? 'record' : reply}`;
    })
    .join(', ');
}
