/**
 * One fault scenario: complete N payments on a store, inject a fault, redispatch every call (same
 * tool call id) and count what each redispatch met. A redispatch whose body ran again is a
 * duplicate effect; one that returned the stored result or was refused is not.
 */
import { sideEffect } from '../../src/ledger/boundary-markers.js';
import { createLedger } from '../../src/ledger/create-ledger.js';
import type { LedgerStorage } from '../../src/storage/ledger-storage.js';

/** What the N redispatches after a fault met. */
export interface FaultCounts {
  readonly calls: number;
  /** First calls that completed before the fault (a store refused up front completes none). */
  readonly completed: number;
  readonly duplicates: number;
  /** Redispatches that returned without running the body (the stored result). */
  readonly returned: number;
  /** Refusals by error code (`ledger_storage_corrupt: 40`). */
  readonly refused: Readonly<Record<string, number>>;
}

/** A store under test and how to hurt it. */
export interface FaultPlan {
  /** The storage the first calls run on. */
  readonly before: () => LedgerStorage;
  /** Inject the fault (after the first calls, unless `during` is set). */
  readonly inject: () => Promise<void>;
  /** The storage the redispatches run on: the same object by default (a running process). */
  readonly after?: () => LedgerStorage;
}

const quietLogger = { debug: () => {}, warn: () => {}, error: () => {} };

function paymentTool(storage: LedgerStorage, effects: Map<string, number>) {
  const ledger = createLedger({ storage, agentId: 'faults', policyVersion: '1', logger: quietLogger });
  const pay = ledger.tool(
    { name: 'pay', sideEffectClass: 'non_idempotent_mutate' },
    async (args: { readonly id: string }) =>
      sideEffect(async () => {
        effects.set(args.id, (effects.get(args.id) ?? 0) + 1);
        return { paid: args.id };
      }),
  );
  return { pay, close: () => ledger.close() };
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.name : 'unknown';
}

/** Run `calls` payments, the fault, then every redispatch; count the effects. */
export async function runFault(plan: FaultPlan, calls: number): Promise<FaultCounts> {
  const effects = new Map<string, number>();
  const first = paymentTool(plan.before(), effects);
  const ids = Array.from({ length: calls }, (_, i) => `call-${i}`);
  let completed = 0;
  for (const id of ids) {
    try {
      await first.pay({ id }, { toolCallId: id });
      completed += 1;
    } catch {
      // A store refused up front: nothing ran.
    }
  }
  await plan.inject();
  const second = plan.after === undefined ? first : paymentTool(plan.after(), effects);
  const before = new Map(effects);
  let returned = 0;
  const refused: Record<string, number> = {};
  for (const id of ids) {
    try {
      await second.pay({ id }, { toolCallId: id });
      returned += 1;
    } catch (error) {
      const code = codeOf(error);
      refused[code] = (refused[code] ?? 0) + 1;
    }
  }
  // A body that ran again after its first call ran is a duplicate; a first run after a refusal is not.
  const duplicates = ids.filter((id) => (before.get(id) ?? 0) > 0 && (effects.get(id) ?? 0) > (before.get(id) ?? 0));
  await first.close().catch(() => undefined);
  if (second !== first) await second.close().catch(() => undefined);
  const ranAgain = ids.filter((id) => (effects.get(id) ?? 0) > (before.get(id) ?? 0)).length;
  return { calls, completed, duplicates: duplicates.length, returned: returned - ranAgain, refused };
}
