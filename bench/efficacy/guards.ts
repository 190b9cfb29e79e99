/**
 * The one hyphae configuration every guarded run uses, whatever the scenario: a memory ledger, the
 * permission, loop and budget fuses, and the side-effect class of each tool. A log of the
 * pipeline's events says what the guards did in a run.
 */
import { createGuardPipeline, type GuardEvent, type GuardPipeline } from '../../src/adapters/openai.js';
import {
  budgetFuse,
  createFuseBox,
  createLedger,
  createMemoryStorage,
  loopFuse,
  permissionFuse,
} from '../../src/index.js';

/** The run's token ceiling. */
export const MAX_TOKENS = 20_000;

/** What the guards did in one run, from the pipeline's events. */
export interface GuardLog {
  readonly onEvent: (event: GuardEvent) => void;
  /** One line: refusals by code, results answered from the ledger, prompts whose transcript was repaired. */
  summary(): string;
}

/** A log of the pipeline's events. */
export function createGuardLog(): GuardLog {
  const refusals = new Map<string, number>();
  let replayed = 0;
  let repairs = 0;
  const count = (code: string) => refusals.set(code, (refusals.get(code) ?? 0) + 1);
  return {
    onEvent(event) {
      if (event.type === 'transcript_repair') repairs++;
      else if (event.status === 'refused') count(event.code ?? 'refused');
      else if (event.type === 'tool_call' && event.source === 'ledger') replayed++;
    },
    summary() {
      const parts = [...refusals].map(([code, n]) => `refused \`${code}\`${n > 1 ? ` ×${n}` : ''}`);
      if (replayed > 0) parts.push(`${replayed} answered from the ledger`);
      if (repairs > 0) parts.push(`prompt repaired${repairs > 1 ? ` ×${repairs}` : ''}`);
      return parts.length === 0 ? 'nothing refused' : parts.join('; ');
    },
  };
}

/** The guard pipeline of one run. */
export function createBenchPipeline(onEvent: (event: GuardEvent) => void): GuardPipeline {
  return createGuardPipeline({
    ledger: createLedger({ storage: createMemoryStorage(), agentId: 'efficacy', policyVersion: '1' }),
    fuses: createFuseBox({
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
      loop: loopFuse({ repeatThreshold: 3, maxCycleLength: 4, terminal: true }),
      budget: budgetFuse({ maxTokens: MAX_TOKENS }),
    }),
    tools: {
      lookup_order: { sideEffectClass: 'read' },
      poll_status: { sideEffectClass: 'read' },
      search_docs: { sideEffectClass: 'read' },
      open_doc: { sideEffectClass: 'read' },
      send_reminder: { sideEffectClass: 'email' },
      send_payment: { sideEffectClass: 'payment' },
      refund: { sideEffectClass: 'payment' },
    },
    onEvent,
  });
}
