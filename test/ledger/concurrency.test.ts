/**
 * Exactly once under real concurrency inside one process: N callers race on one transition.
 *
 * Memory: N ledgers share one storage. Durable backends: N ledgers each own a storage instance
 * (their own connection or client) on the same file or server, so the race reaches the store.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createLedger,
  createMemoryStorage,
  type LedgerStorage,
  type SideEffectClass,
  sideEffect,
  ticketKey,
} from '../../src/index.js';
import { AGENT_ID, type ChargeArgs, chargeSpec, durableBackends, POLICY_VERSION } from '../helpers/backends.js';

const backends = await durableBackends();
const SIZES = [2, 8, 32] as const;

interface Outcome {
  readonly key: string;
  readonly executedBy: number;
}

/** Storage instances for N callers, and how to release them. */
interface Stores {
  readonly storages: readonly LedgerStorage[];
  close(): Promise<void>;
}

type StoresFor = (n: number) => Promise<Stores>;

const memoryStores: StoresFor = async (n) => {
  const storage = createMemoryStorage();
  return { storages: Array.from({ length: n }, () => storage), close: () => storage.close() };
};

/**
 * One ledger per storage instance, all with the same `charge` tool. The body counts its runs per
 * call id and takes a little real time inside the side effect, so the other callers meet it in flight.
 */
function chargeTools(storages: readonly LedgerStorage[], sideEffectClass: SideEffectClass) {
  const runs = new Map<string, number>();
  const tools = storages.map((storage, index) => {
    const ledger = createLedger({
      storage,
      agentId: AGENT_ID,
      policyVersion: POLICY_VERSION,
      pollIntervalMs: 5,
      pollMaxIntervalMs: 40,
    });
    return ledger.tool(chargeSpec(sideEffectClass), async (args: ChargeArgs & { readonly key: string }) => {
      runs.set(args.key, (runs.get(args.key) ?? 0) + 1);
      return sideEffect(async (): Promise<Outcome> => {
        await sleep(15);
        return { key: args.key, executedBy: index };
      });
    });
  });
  return { tools, runs };
}

const argsFor = (key: string): ChargeArgs & { readonly key: string } => ({
  amount: 100,
  recipient: 'acct_123',
  idempotencyKey: `idem_${key}`,
  key,
});

function describeExactlyOnce(name: string, storesFor: StoresFor): void {
  describe(name, () => {
    it.each(SIZES)('%i concurrent callers on one transition: one body run, one result for all', async (n) => {
      const stores = await storesFor(n);
      try {
        const { tools, runs } = chargeTools(stores.storages, 'keyed_mutate');
        const callId = `call_${randomUUID()}`;

        const results = await Promise.all(tools.map((tool) => tool(argsFor(callId), { toolCallId: callId })));

        expect(runs.get(callId)).toBe(1);
        const first = results[0];
        expect(first?.key).toBe(callId);
        for (const result of results) expect(result).toEqual(first);
        const record = await stores.storages[0]?.findByTicket(ticketKey({}, AGENT_ID, callId));
        expect(record).toMatchObject({
          outcome: 'COMPLETED',
          boundary: 'crossed',
          attempts: 1,
          fence: 1,
          result: first,
        });
      } finally {
        await stores.close();
      }
    });

    it.each(['idempotent_mutate', 'non_idempotent_mutate', 'irreversible'] as const)(
      '8 concurrent callers of a `%s` tool run it once',
      async (sideEffectClass) => {
        const stores = await storesFor(8);
        try {
          const { tools, runs } = chargeTools(stores.storages, sideEffectClass);
          const callId = `call_${randomUUID()}`;

          const results = await Promise.all(tools.map((tool) => tool(argsFor(callId), { toolCallId: callId })));

          expect(runs.get(callId)).toBe(1);
          expect(new Set(results.map((result) => JSON.stringify(result))).size).toBe(1);
        } finally {
          await stores.close();
        }
      },
    );

    it('concurrent callers over 16 distinct transitions run each exactly once', async () => {
      const stores = await storesFor(8);
      try {
        const { tools, runs } = chargeTools(stores.storages, 'keyed_mutate');
        const keys = Array.from({ length: 16 }, (_, i) => `call_${i}_${randomUUID()}`);
        // Two callers per key, on different ledgers, interleaved with the other keys' callers.
        const calls = keys.flatMap((key, i) =>
          [0, 1].map((copy) => ({ key, tool: tools[(i + copy * 3) % tools.length] })),
        );

        const results = await Promise.all(calls.map(({ key, tool }) => tool?.(argsFor(key), { toolCallId: key })));

        for (const key of keys) expect(runs.get(key), key).toBe(1);
        expect(runs.size).toBe(keys.length);
        for (const [i, { key }] of calls.entries()) expect(results[i]?.key).toBe(key);
        for (const key of keys) {
          const pair = results.filter((result) => result?.key === key);
          expect(pair).toHaveLength(2);
          expect(pair[0]).toEqual(pair[1]);
        }
      } finally {
        await stores.close();
      }
    });
  });
}

describeExactlyOnce('memory (one storage shared by N ledgers)', memoryStores);

for (const backend of backends) {
  afterAll(() => backend.dispose());
  describeExactlyOnce(`${backend.name} (one storage instance per ledger)`, async (n) => {
    const opened = await Promise.all(Array.from({ length: n }, () => backend.open()));
    return {
      storages: opened.map((o) => o.storage),
      close: async () => {
        await Promise.all(opened.map((o) => o.cleanup()));
      },
    };
  });
}
