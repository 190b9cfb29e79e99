/**
 * The callers of the 32-way race, one per client: hyphae ledgers on the Redis driver, and
 * powertools `makeIdempotent` functions on the cache persistence layer. Each round is one key for
 * all callers; every body reports to the same execution log.
 */
import { createLedger } from '../../src/index.js';
import { createRedisStorage } from '../../src/storage/redis.js';
import { powertoolsIdempotent } from './powertools-redis.js';
import { type Contender, type ExecutionLog, executionLog } from './race.js';
import type { BenchRedisClient } from './redis-bench-client.js';

/** The callers of one library and the log their bodies write. */
export interface Contenders {
  readonly library: string;
  readonly callers: readonly Contender[];
  readonly log: ExecutionLog;
  /** Release what the contenders opened beyond the clients they were given. */
  close(): Promise<void>;
}

/** The arguments of a racing call; `round` tells the body which round it ran in. */
interface RaceArgs {
  readonly orderId: string;
  readonly amount: number;
  readonly round: number;
}

const SPEC = { name: 'bench_race', sideEffectClass: 'idempotent_mutate' } as const;

/** One ledger per client over the same key prefix; every caller of a round uses the same call id. */
export function hyphaeContenders(clients: readonly BenchRedisClient[], prefix: string): Contenders {
  const log = executionLog();
  const storages = clients.map((client) => createRedisStorage({ client }, { prefix: `${prefix}hyphae:` }));
  const callers = storages.map((storage, by): Contender => {
    const ledger = createLedger({ storage, agentId: 'bench-agent', policyVersion: 'bench.1' });
    const tool = ledger.tool(SPEC, async (args: RaceArgs) => log.execute(args.round, by));
    return (round) => tool({ orderId: `race_${round}`, amount: 100, round }, { toolCallId: `race_call_${round}` });
  });
  return {
    library: 'hyphae',
    callers,
    log,
    async close() {
      // Each storage closes the notice subscriber it opened (a duplicate of its client).
      await Promise.all(storages.map((storage) => storage.close()));
    },
  };
}

/** One persistence layer and idempotent function per client; every caller of a round sends the same payload. */
export function powertoolsContenders(clients: readonly BenchRedisClient[], prefix: string): Contenders {
  const log = executionLog();
  const callers = clients.map((client, by): Contender => {
    const fn = powertoolsIdempotent(client, `${prefix}powertools`, async (payload: RaceArgs & { toolCallId: string }) =>
      log.execute(payload.round, by),
    );
    return (round) => fn({ orderId: `race_${round}`, amount: 100, round, toolCallId: `race_call_${round}` });
  });
  return { library: 'powertools', callers, log, close: async () => undefined };
}
