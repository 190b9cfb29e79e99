/**
 * Built-in tools that charge their own budget (renders, asset inspections) do so only once the
 * call passed their own checks; the pipeline learns through this registry whether they did.
 */
import type { ToolContext } from './agent-tool.js';

const charges = new WeakMap<ToolContext, () => void>();

/** Register how a call's context is charged (by the pipeline, for self-charging tools). */
export function registerCharge(context: ToolContext, charge: () => void): void {
  charges.set(context, charge);
}

/** Mark the call of `context` as charged. */
export function chargeCall(context: ToolContext): void {
  charges.get(context)?.();
}
