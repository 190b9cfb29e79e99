/**
 * The two systems of the DBOS comparison over one PostgreSQL database: hyphae's ledger on the
 * PostgreSQL driver and a DBOS Transact workflow of one step, each with a body that can be made to
 * hang (so a child process can be killed inside it).
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { createLedger, sideEffect } from '../../src/index.js';
import { createPostgresStorage, type PostgresStorage } from '../../src/storage/postgres.js';

/** The database of the comparison; created when missing, DBOS's schema dropped at the start of a run. */
export const DATABASE = 'dbos_bench';
/** The server URL without a database. */
export const SERVER_URL = 'postgres://postgres@127.0.0.1:5432';
/** The database URL both systems use. */
export const DATABASE_URL = `${SERVER_URL}/${DATABASE}`;
/** The DBOS application name. */
export const DBOS_APP = 'hyphae_bench';
/** The DBOS queue the tuned recovery resumes onto (polled every millisecond). */
export const FAST_QUEUE = 'hyphae_bench_recovery';
/** The lease of the hyphae worker that is killed: short, so a redispatch can reclaim soon after. */
export const CRASHED_LEASE_MS = 250;

/** The arguments of every call, as in the ledger benches. */
export const ARGS = { orderId: 'ord_42', amount: 100 } as const;
/** The hyphae tool: a no-op that is safe to run again when it never finished. */
export const SPEC = { name: 'bench_noop', sideEffectClass: 'idempotent_mutate' } as const;
const IDENTITY = { agentId: 'bench-agent', policyVersion: 'bench.1' } as const;

type Args = typeof ARGS;

/** What a step body does: return at once, or tell the parent it entered and never return. */
let stepBody: (args: Args) => Promise<undefined> = async () => undefined;

/** The ledger a restarted worker opens over `storage` to mark the dead worker's claims. */
export function hyphaeLedger(storage: PostgresStorage) {
  return createLedger({ storage, ...IDENTITY });
}

/** Make every step body from now on hang after calling `entered` (for a child that is to be killed). */
export function hangStepBodies(entered: () => void): void {
  stepBody = () => {
    entered();
    return new Promise<undefined>(() => {});
  };
}

/** Steps the parent ran, to check that a completed workflow's replay does not run its step again. */
export const stepRuns = { count: 0 };

async function effect(args: Args): Promise<undefined> {
  stepRuns.count++;
  return stepBody(args);
}

/** The DBOS workflow: one step, checkpointed by DBOS in its system database. */
export const oneStepWorkflow = DBOS.registerWorkflow(
  async function benchOneStep(args: Args): Promise<undefined> {
    return DBOS.runStep(() => effect(args), { name: 'effect' });
  },
  { name: 'benchOneStep' },
);

/** Configure and launch DBOS in this process. `executorID` names a child's executor. */
export async function launchDbos(executorID?: string): Promise<void> {
  DBOS.setConfig({
    name: DBOS_APP,
    systemDatabaseUrl: DATABASE_URL,
    logLevel: 'error',
    ...(executorID === undefined ? {} : { executorID }),
  });
  await DBOS.launch();
}

/** A hyphae PostgreSQL store under `tablePrefix` in the bench database (its own pool, ended on close). */
export function hyphaeStorage(tablePrefix: string): PostgresStorage {
  return createPostgresStorage({ connectionString: DATABASE_URL }, { tablePrefix });
}

/** Where a killed hyphae worker hangs: in a plain body, or inside `sideEffect()` (after its mark). */
export type HyphaeHang = 'body' | 'sideEffect';

/** How a hanging hyphae worker is set up: where it hangs, its lease, and its owner id when it has one. */
export interface HyphaeHangSetup {
  readonly where: HyphaeHang;
  readonly entered: () => void;
  /** `short`: {@link CRASHED_LEASE_MS}; `default`: the ledger's default lease (5 min). */
  readonly lease?: 'short' | 'default';
  /** A stable owner id, as a restarted worker names the claims of the one that died. */
  readonly ownerId?: string;
}

/** A hyphae tool over `storage`; `hang` makes its body hang (a child), none returns at once. */
export function hyphaeTool(storage: PostgresStorage, hang?: HyphaeHangSetup) {
  const never = () => new Promise<undefined>(() => {});
  const ledger = createLedger({
    storage,
    ...IDENTITY,
    ...(hang === undefined || hang.lease === 'default' ? {} : { leaseTtlMs: CRASHED_LEASE_MS }),
    ...(hang?.ownerId === undefined ? {} : { ownerId: hang.ownerId }),
  });
  return ledger.tool(SPEC, async (_args: Args): Promise<undefined> => {
    if (hang === undefined) return undefined;
    if (hang.where === 'body') {
      hang.entered();
      return never();
    }
    return sideEffect(() => {
      hang.entered();
      return never();
    });
  });
}
