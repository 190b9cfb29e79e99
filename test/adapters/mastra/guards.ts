/**
 * The guard pipeline of the Mastra tests: the billing agent's tools, the loop fuse with a polling
 * allowance, and optionally a token budget, over a memory ledger.
 */
import { createGuardPipeline, type GuardEvent, type GuardPipeline } from '../../../src/adapters/mastra.js';
import {
  budgetFuse,
  createFuseBox,
  createLedger,
  createMemoryStorage,
  type LedgerStorage,
  loopFuse,
  permissionFuse,
} from '../../../src/index.js';

/** Options of the test pipeline. */
export interface TestGuardsOptions {
  readonly storage?: LedgerStorage;
  readonly maxTokens?: number;
  readonly events?: GuardEvent[];
}

/** The pipeline of one test. */
export function billingGuards(options: TestGuardsOptions = {}): GuardPipeline {
  const { events } = options;
  return createGuardPipeline({
    ledger: createLedger({
      storage: options.storage ?? createMemoryStorage(),
      agentId: 'mastra-billing',
      policyVersion: '1',
    }),
    fuses: createFuseBox({
      permission: permissionFuse({
        granted: ['read', 'pay'],
        tools: { lookup_order: ['read'], poll_status: ['read'], send_payment: ['pay'], refund: ['refund'] },
      }),
      loop: loopFuse({ repeatThreshold: 3, maxCycleLength: 4, allowances: { poll_status: 20 } }),
      ...(options.maxTokens === undefined ? {} : { budget: budgetFuse({ maxTokens: options.maxTokens }) }),
    }),
    tools: {
      lookup_order: { sideEffectClass: 'read' },
      poll_status: { sideEffectClass: 'read' },
      send_payment: { sideEffectClass: 'payment', ledger: { identity: 'intent' } },
      refund: { sideEffectClass: 'payment' },
    },
    ...(events === undefined ? {} : { onEvent: (event: GuardEvent) => events.push(event) }),
  });
}
