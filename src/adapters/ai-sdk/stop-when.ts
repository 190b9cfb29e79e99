/**
 * `hyphaeStopWhen`: a stop condition for `generateText` / `streamText` that ends the run once the
 * guards hold a terminal refusal.
 */
import type { GuardRun } from '../shared/run-types.js';

/** A stop condition, declared structurally (`StopCondition` of `ai`). */
export type HyphaeStopCondition = (options: { readonly steps: readonly unknown[] }) => boolean;

/**
 * Stop the tool loop after the step in which a terminal refusal latched the run: a terminal fuse
 * verdict (a permission fuse at its denial limit, a used-up budget), a refusal of one of the
 * pipeline's `terminalFuses`, or an untrustworthy ledger store.
 *
 * @example
 * await generateText({ model, tools, prompt, stopWhen: [isStepCount(10), hyphaeStopWhen(guards)] });
 */
export function hyphaeStopWhen(guards: GuardRun): HyphaeStopCondition {
  return function stopOnTerminalRefusal() {
    return guards.stopped !== null;
  };
}
