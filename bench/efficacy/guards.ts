/**
 * The hyphae configuration every guarded run uses, whatever the scenario: `createGuards` of
 * `examples/guards.ts`, the very text the adapter docs show, over a fresh memory ledger. A log of
 * the pipeline's events says what the guards did in a run.
 */
import { createGuards } from '../../examples/guards.js';
import type { GuardEvent, GuardPipeline } from '../../src/adapters/openai.js';
import { createMemoryStorage } from '../../src/index.js';

/** The run's token ceiling (the `budgetFuse` of `createGuards`). */
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
  return createGuards(createMemoryStorage(), onEvent);
}
