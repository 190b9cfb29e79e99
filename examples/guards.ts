/**
 * The guard configuration every adapter page of the docs shows, between the `guards` region
 * markers: the docs embed the region as it is (a test checks that they do), and the efficacy bench
 * runs exactly this configuration. Pass the ledger storage your deployment uses
 * (`createSqliteStorage`, `createRedisStorage`, `createPostgresStorage`; memory in tests).
 *
 * Published imports: `hyphae` and the adapter entry of your framework (`hyphae/openai`, …).
 */
import { createGuardPipeline, type GuardEvent, type GuardPipeline } from '../src/adapters/openai.js';
import { budgetFuse, createFuseBox, createLedger, type LedgerStorage, loopFuse, permissionFuse } from '../src/index.js';

// #region guards
/** The guards of the billing agent, over the ledger storage your deployment uses. */
export function createGuards(storage: LedgerStorage, onEvent?: (event: GuardEvent) => void): GuardPipeline {
  return createGuardPipeline({
    ledger: createLedger({ storage, agentId: 'billing-agent', policyVersion: '1' }),
    fuses: createFuseBox({
      // Deny by default: a tool runs only with every permission it needs granted.
      permission: permissionFuse({
        granted: ['read', 'notify', 'pay'],
        tools: {
          lookup_order: ['read'],
          poll_status: ['read'],
          search_docs: ['read'],
          open_doc: ['read'],
          send_reminder: ['notify'],
          send_payment: ['pay'],
          refund: ['refund'],
        },
      }),
      // The 3rd identical call and an A,B,A,B cycle end the run; a polling tool may repeat 20 times.
      loop: loopFuse({ repeatThreshold: 3, maxCycleLength: 4, allowances: { poll_status: 20 } }),
      // The model call that would cross 20,000 tokens is not sent.
      budget: budgetFuse({ maxTokens: 20_000 }),
    }),
    tools: {
      lookup_order: { sideEffectClass: 'read' },
      poll_status: { sideEffectClass: 'read' },
      search_docs: { sideEffectClass: 'read' },
      open_doc: { sideEffectClass: 'read' },
      send_reminder: { sideEffectClass: 'email' },
      // One payment per intent: the same arguments in the same run never pay twice, whatever the call id.
      send_payment: { sideEffectClass: 'payment', ledger: { identity: 'intent' } },
      refund: { sideEffectClass: 'payment', ledger: { identity: 'intent' } },
    },
    ...(onEvent === undefined ? {} : { onEvent }),
  });
}
// #endregion guards
