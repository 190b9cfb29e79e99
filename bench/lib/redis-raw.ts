/**
 * The Redis baseline: the driver's own Lua scripts run with EVALSHA through the same client, with
 * the KEYS and ARGV the driver passes (`src/storage/redis.ts`) and documents of the same size.
 *   create = EVALSHA create script (record hash, list index, ledger marker, ticket entry)
 *   update = EVALSHA compare-and-set script
 */
import { createHash } from 'node:crypto';
import { randomKey } from './random-key.js';
import { parseDoc, splitWrites, type WrittenDoc } from './written-docs.js';

/** The slice of a node-redis client the baseline uses. */
export interface RawRedisClient {
  sendCommand(args: string[]): Promise<unknown>;
}

/** The scripts to run (the driver's). */
export interface RedisScripts {
  readonly create: string;
  readonly update: string;
}

/** The operation of each case, and the two commands they send. */
export interface RawRedis {
  /** Send the create script for record `key` with ticket index entry `ticketKey`, holding `write`. */
  create(key: string, ticketKey: string, write: WrittenDoc): Promise<unknown>;
  /** Send the compare-and-set script for record `key`, expecting version `expected`. */
  update(key: string, ticketKey: string, expected: number, write: WrittenDoc): Promise<unknown>;
  /** One fresh call that writes `docs`: the create script, then one CAS script per further doc. */
  write(docs: readonly string[]): () => Promise<void>;
  /** A replay: the create script meeting an existing record holding `doc`. */
  replay(doc: string): Promise<() => Promise<void>>;
}

const sha1 = (text: string): string => createHash('sha1').update(text).digest('hex');

/** How the raw operations run their scripts. */
export interface RawRedisOptions {
  /** Call these functions (of a library the caller loaded) with the same KEYS and ARGV, not the scripts by EVALSHA. */
  readonly functions?: { readonly create: string; readonly update: string };
}

/** Load the scripts and build the raw operations under `prefix`. */
export async function openRawRedis(
  client: RawRedisClient,
  prefix: string,
  scripts: RedisScripts,
  options: RawRedisOptions = {},
): Promise<RawRedis> {
  await client.sendCommand(['SCRIPT', 'LOAD', scripts.create]);
  await client.sendCommand(['SCRIPT', 'LOAD', scripts.update]);
  const named = options.functions;
  const createHead = named === undefined ? ['EVALSHA', sha1(scripts.create)] : ['FCALL', named.create];
  const updateHead = named === undefined ? ['EVALSHA', sha1(scripts.update)] : ['FCALL', named.update];
  const recordPrefix = `${prefix}rec:`;
  const index = `${prefix}updated`;
  // The scripts check the ledger marker, as the driver's do; the baseline writes it once.
  const markerKey = `${prefix}ledger`;
  const ledgerId = 'bench-raw';
  await client.sendCommand(['HSET', markerKey, 'id', ledgerId, 'at', String(Date.now())]);

  const create = (key: string, ticketKey: string, write: WrittenDoc): Promise<unknown> =>
    client.sendCommand([
      ...createHead,
      '4',
      `${recordPrefix}${key}`,
      index,
      markerKey,
      `${prefix}ticket:${ticketKey}`,
      recordPrefix,
      key,
      write.doc,
      String(write.version),
      String(Date.now()),
      write.outcome,
      write.tool,
      write.kind,
      `=${ticketKey}`,
      ledgerId,
    ]);
  const update = (key: string, ticketKey: string, expected: number, write: WrittenDoc): Promise<unknown> =>
    client.sendCommand([
      ...updateHead,
      '3',
      `${recordPrefix}${key}`,
      index,
      markerKey,
      key,
      String(expected),
      write.doc,
      String(write.version),
      String(Date.now()),
      write.outcome,
      write.tool,
      write.kind,
      `=${ticketKey}`,
      ledgerId,
    ]);

  return {
    create,
    update,
    write(docs) {
      const { first, rest } = splitWrites(docs);
      return async () => {
        const key = randomKey();
        const ticketKey = randomKey();
        const created = (await create(key, ticketKey, first)) as unknown[];
        if (created[0] !== 'created') throw new Error('Raw create met an existing record');
        let version = first.version;
        for (const write of rest) {
          if ((await update(key, ticketKey, version, write)) !== 1) throw new Error('Raw CAS update lost');
          version = write.version;
        }
      };
    },
    async replay(doc) {
      const key = randomKey();
      const ticketKey = randomKey();
      const stored = parseDoc(doc);
      await create(key, ticketKey, stored);
      return async () => {
        const reply = (await create(key, ticketKey, stored)) as unknown[];
        if (reply[0] !== 'key') throw new Error('Raw replay did not meet its record');
      };
    },
  };
}
