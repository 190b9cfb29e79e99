/**
 * Every store a ledger test runs on: the memory store, then the durable backends this machine has;
 * and a ledger with the tests' agent and policy over one of them.
 */
import { createLedger, createMemoryStorage, type Ledger, type LedgerStorage } from '../../src/index.js';
import { AGENT_ID, durableBackends, POLICY_VERSION } from './backends.js';

/** A store to open, by name, and what to release once its tests are done. */
export interface StoreUnderTest {
  readonly name: string;
  open(): Promise<{ readonly storage: LedgerStorage; cleanup(): Promise<void> }>;
  dispose(): Promise<void>;
}

const memory: StoreUnderTest = {
  name: 'memory',
  open: async () => ({ storage: createMemoryStorage(), cleanup: async () => undefined }),
  dispose: async () => undefined,
};

/** `[name, store]` rows for `describe.each`: memory first, then every durable backend. */
export async function everyStore(): Promise<(readonly [string, StoreUnderTest])[]> {
  return [memory, ...(await durableBackends())].map((store) => [store.name, store] as const);
}

/** A ledger over `storage` with the tests' agent and policy version. */
export function ledgerOn(storage: LedgerStorage): Ledger {
  return createLedger({ storage, agentId: AGENT_ID, policyVersion: POLICY_VERSION });
}
