import { createManualClock } from '../../src/core/clock.js';
import { budgetFuse } from '../../src/fuses/budget.js';
import { createFuseBox, type FuseBoxOptions } from '../../src/fuses/fuse-box.js';
import { loopFuse } from '../../src/fuses/loop.js';
import { permissionFuse } from '../../src/fuses/permission.js';
import type { FuseRefusal, FuseVerdict } from '../../src/fuses/verdict.js';

/** The refund scenario of the design document. */
export const REFUND_TOOLS = {
  lookup_order: ['read'],
  search_docs: ['read'],
  poll_status: ['read'],
  issue_refund: ['write', 'spend_money'],
} as const;

/** Narrow a verdict to a refusal (fails the test otherwise). */
export function refused(verdict: FuseVerdict): FuseRefusal {
  if (verdict.allowed) throw new Error('expected a refusal, got an allowance');
  return verdict;
}

/** A box with the refund permissions, the default loop fuse and the given extras. */
export function refundBox(extra: FuseBoxOptions = {}) {
  return createFuseBox({
    permission: permissionFuse({ granted: ['read'], tools: REFUND_TOOLS }),
    loop: loopFuse(),
    clock: createManualClock(1_000),
    ...extra,
  });
}

/** A counter that makes estimates easy to compute by hand: one token per character. */
export const charCounter = (text: string): number => text.length;

/** A budget whose estimates are exact: one token a character, $1 per 1k input and $2 per 1k output. */
export function simpleBudget(options: { maxUsd?: number; maxTokens?: number; terminal?: boolean } = {}) {
  return budgetFuse({
    ...options,
    price: { inputPer1k: 1, outputPer1k: 2, cachedInputPer1k: 0.5 },
    tokenCounter: charCounter,
  });
}
