/**
 * The Redis and PostgreSQL drivers check how they were asked to connect before anything is sent:
 * a wrong client, pool or address is a typed `invalid_option` that says what to pass instead.
 */
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { GuardError } from '../../src/errors.js';
import { createPostgresStorage, type PostgresConnectionOptions } from '../../src/storage/postgres.js';
import { createRedisStorage, fromIoredis, type RedisConnectionOptions } from '../../src/storage/redis.js';

function refusal(open: () => unknown): GuardError {
  try {
    open();
  } catch (error) {
    expect(error).toBeInstanceOf(GuardError);
    expect((error as GuardError).code).toBe('invalid_option');
    return error as GuardError;
  }
  throw new Error('the option was accepted');
}

describe('Redis connection options', () => {
  it('refuses an ioredis client passed bare and names fromIoredis', () => {
    const client = new Redis({ lazyConnect: true });
    const error = refusal(() => createRedisStorage({ client } as unknown as RedisConnectionOptions));
    expect(error.message).toContain('ioredis');
    expect(error.message).toContain('fromIoredis(client)');
    // Wrapped, the same client is taken (nothing connects until the first operation).
    expect(createRedisStorage({ client: fromIoredis(client) }).capabilities.name).toBe('redis');
  });

  it('refuses an ioredis client with a keyPrefix, which the scripts could not honour', () => {
    const client = new Redis({ lazyConnect: true, keyPrefix: 'app:' });
    const error = refusal(() => fromIoredis(client));
    expect(error.message).toContain('`keyPrefix` (`app:`)');
    expect(error.message).toContain('`{ prefix }`');
  });

  it.each([
    ['no client or url', {}],
    ['a client without sendCommand', { client: { send: () => undefined } }],
    ['a null client', { client: null }],
    ['an empty url', { url: '' }],
    ['a url that is not a string', { url: 6379 }],
  ])('refuses %s', (_what, options) => {
    const error = refusal(() => createRedisStorage(options as unknown as RedisConnectionOptions));
    expect(error.message).toContain('needs a connected `client`');
  });

  it('refuses a missing options object', () => {
    refusal(() => createRedisStorage(undefined as unknown as RedisConnectionOptions));
  });
});

describe('PostgreSQL connection options', () => {
  it.each([
    ['no pool or connection string', {}],
    ['a pool without query', { pool: { end: async () => undefined } }],
    ['a pool without end', { pool: { query: async () => ({ rows: [], rowCount: 0 }) } }],
    ['an empty connection string', { connectionString: '' }],
  ])('refuses %s', (_what, options) => {
    const error = refusal(() => createPostgresStorage(options as unknown as PostgresConnectionOptions));
    expect(error.message).toContain('needs a `pool`');
  });

  it('takes anything with query and end', () => {
    const pool = { query: async () => ({ rows: [], rowCount: 0 }), end: async () => undefined };
    expect(createPostgresStorage({ pool }).capabilities.name).toBe('postgres');
  });
});
