/**
 * The cases of the comparison with `@aws-lambda-powertools/idempotency` on one Redis server: each
 * library's first call and replay of a no-op, and the commands each sent, sent bare as its raw
 * baseline. `powertools.ts` measures them side by side; `first-call-parts.ts` puts layers between.
 */
import { CREATE_RECORD_SCRIPT, UPDATE_RECORD_SCRIPT } from '../../src/storage/redis/scripts.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import type { Plan, TimedCase } from '../lib/measure.js';
import {
  type CacheCommand,
  describeCommands,
  powertoolsIdempotent,
  recordingCacheClient,
  sendCommands,
} from '../lib/powertools-redis.js';
import { randomKey } from '../lib/random-key.js';
import type { BenchRedisClient } from '../lib/redis-bench-client.js';
import { openRawRedis } from '../lib/redis-raw.js';
import { ledgerCases, ticketSource } from './cases.js';
import { countWrites, type WriteCount } from './write-counts.js';

/** How long each case of the comparison is measured: about 1 min for a full run, under 15 s for `--quick`. */
export function comparisonPlan(quick: boolean): Plan {
  return quick ? { warmupMs: 50, durationMs: 250, rounds: 2 } : { warmupMs: 500, durationMs: 4000, rounds: 16 };
}

/** The payload of a powertools call: the ledger cases' arguments plus the call id, all hashed into its key. */
interface Payload {
  readonly orderId: string;
  readonly amount: number;
  readonly toolCallId: string;
}

/** The arguments of the ledger cases (`cases.ts`), which the powertools payload carries too. */
const ARGS = { orderId: 'ord_42', amount: 100 } as const;

async function noop(_payload: Payload): Promise<undefined> {
  return undefined;
}

/** A first call and a replay. */
export interface CallAndReplay {
  readonly call: TimedCase;
  readonly replay: TimedCase;
}

/** Every case of the comparison, and what was counted on the way. */
export interface PowertoolsComparison {
  readonly hyphae: CallAndReplay;
  readonly powertools: CallAndReplay;
  readonly hyphaeRaw: CallAndReplay;
  readonly powertoolsRaw: CallAndReplay;
  /** The ledger's storage writes and reads per case. */
  readonly writes: Record<'call' | 'replay', WriteCount>;
  /** The commands powertools sent for a first call and for a replay. */
  readonly commands: Record<'call' | 'replay', CacheCommand[]>;
}

/** The powertools cases: a fresh payload each call, and one payload repeated. */
export function powertoolsCases(client: BenchRedisClient, keyPrefix: string): CallAndReplay {
  const nextTicket = ticketSource();
  return {
    call: {
      name: 'powertools redis: makeIdempotent no-op call (fresh key)',
      start() {
        const fn = powertoolsIdempotent(client, keyPrefix, noop);
        return () => fn({ ...ARGS, toolCallId: nextTicket() });
      },
    },
    replay: {
      name: 'powertools redis: replay (same payload again → stored response)',
      async start() {
        const fn = powertoolsIdempotent(client, keyPrefix, noop);
        const payload = { ...ARGS, toolCallId: nextTicket() };
        await fn(payload);
        return () => fn(payload);
      },
    },
  };
}

/** The commands powertools sends for a first call and for a replay, seen through a recording client. */
async function powertoolsCommands(
  client: BenchRedisClient,
  keyPrefix: string,
): Promise<Record<'call' | 'replay', CacheCommand[]>> {
  const recording = recordingCacheClient(client);
  const fn = powertoolsIdempotent(recording.client, keyPrefix, noop);
  const payload = { ...ARGS, toolCallId: `count_${randomKey().slice(0, 8)}` };
  await fn(payload);
  const call = recording.commands.splice(0);
  await fn(payload);
  return { call, replay: recording.commands.splice(0) };
}

/** The comparison's cases over `client`, every key under `run`. */
export async function powertoolsComparison(client: BenchRedisClient, run: string): Promise<PowertoolsComparison> {
  const storage = createRedisStorage({ client }, { prefix: `${run}hyphae:` });
  const writes = await countWrites('redis', storage);
  const hyphae = ledgerCases('hyphae redis', () => storage);
  const hyphaeRaw = await openRawRedis(client, `${run}hyphae-raw:`, {
    create: CREATE_RECORD_SCRIPT,
    update: UPDATE_RECORD_SCRIPT,
  });
  const completed = writes.call.docs.at(-1) ?? '{}';
  const commands = await powertoolsCommands(client, `${run}powertools-count`);
  const rawPrefix = `${run}powertools-raw#`;
  return {
    hyphae: { call: hyphae.call, replay: hyphae.replay },
    powertools: powertoolsCases(client, `${run}powertools`),
    hyphaeRaw: {
      call: { name: 'hyphae raw: create + update EVALSHA', start: () => hyphaeRaw.write(writes.call.docs) },
      replay: { name: 'hyphae raw: create EVALSHA meeting the record', start: () => hyphaeRaw.replay(completed) },
    },
    powertoolsRaw: {
      call: {
        name: `powertools raw: ${describeCommands(commands.call)}`,
        start: () => () => sendCommands(client, commands.call, `${rawPrefix}${randomKey()}`),
      },
      replay: {
        name: `powertools raw: ${describeCommands(commands.replay)}`,
        async start() {
          const key = `${rawPrefix}${randomKey()}`;
          await sendCommands(client, commands.call, key);
          return () => sendCommands(client, commands.replay, key);
        },
      },
    },
    writes,
    commands,
  };
}
