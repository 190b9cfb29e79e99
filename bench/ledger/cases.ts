/**
 * The ledgered cases, identical on every backend: a fresh no-op call, a replay, a `sideEffect` call.
 */
import { randomUUID } from 'node:crypto';
import { type CallOptions, createLedger, type LedgerStorage, sideEffect } from '../../src/index.js';
import type { TimedCase } from '../lib/measure.js';

/** The cases every backend runs. */
export const CASE_KINDS = ['call', 'replay', 'sideEffect'] as const;
/** One of {@link CASE_KINDS}. */
export type CaseKind = (typeof CASE_KINDS)[number];

/** What each case does, for the report. */
export const CASE_TITLES: Readonly<Record<CaseKind, string>> = {
  call: 'ledgered no-op call (fresh transition)',
  replay: 'replay (same call again → RETURN)',
  sideEffect: 'call whose body runs sideEffect(() => undefined)',
};

const ARGS = { orderId: 'ord_42', amount: 100 } as const;
const SPEC = { name: 'bench_noop', sideEffectClass: 'idempotent_mutate' } as const;

/** The no-op tool body, also called bare as the memory baseline. */
export async function noopBody(_args: unknown, _options: CallOptions): Promise<undefined> {
  return undefined;
}

async function sideEffectBody(): Promise<undefined> {
  return sideEffect(() => undefined);
}

/** Fresh tool call ids, unique across rounds and runs. */
export function ticketSource(): () => string {
  const run = randomUUID().slice(0, 8);
  let seq = 0;
  return () => `call_${run}_${++seq}`;
}

/**
 * The ledgered cases over `storage`, which is asked for a store at the start of every round (a
 * fresh one for memory, so its map does not grow for the whole run; the same one for drivers).
 * One ledger serves every round on the same store, as a server keeps one for its lifetime (a new
 * ledger per round left the code the previous one had warmed to be thrown away at the next full
 * collection). `create` is the ledger's factory: another build's, for the A/B bench.
 */
export function ledgerCases(
  label: string,
  storage: () => LedgerStorage,
  create: typeof createLedger = createLedger,
): Record<CaseKind, TimedCase> {
  const nextTicket = ticketSource();
  const ledgers = new WeakMap<LedgerStorage, ReturnType<typeof createLedger>>();
  const toolOver = (body: typeof noopBody) => {
    const store = storage();
    let ledger = ledgers.get(store);
    if (ledger === undefined) {
      ledger = create({ storage: store, agentId: 'bench-agent', policyVersion: 'bench.1' });
      ledgers.set(store, ledger);
    }
    return ledger.tool(SPEC, body);
  };
  return {
    call: {
      name: `${label}: ${CASE_TITLES.call}`,
      start() {
        const tool = toolOver(noopBody);
        return () => tool(ARGS, { toolCallId: nextTicket() });
      },
    },
    replay: {
      name: `${label}: ${CASE_TITLES.replay}`,
      async start() {
        const tool = toolOver(noopBody);
        const toolCallId = nextTicket();
        await tool(ARGS, { toolCallId });
        return () => tool(ARGS, { toolCallId });
      },
    },
    sideEffect: {
      name: `${label}: ${CASE_TITLES.sideEffect}`,
      start() {
        const tool = toolOver(sideEffectBody);
        return () => tool(ARGS, { toolCallId: nextTicket() });
      },
    },
  };
}

/** The memory baseline: the same body called bare, with the same arguments and a fresh call id. */
export function bareCallCase(label: string): TimedCase {
  const nextTicket = ticketSource();
  return {
    name: `${label}: bare async call of the body`,
    start: () => () => noopBody(ARGS, { toolCallId: nextTicket() }),
  };
}
