/**
 * `ledgeredStepTool`: a tool called inside a DBOS step (an AI SDK tool's `execute` during a model
 * turn the step runs), keyed by the step, the tool name and its arguments, so a retried turn whose
 * model gives the call a new tool call id still meets the first attempt's transition.
 */
import type { CallOptions, Ledger, LedgeredFunction } from '../../ledger/types.js';
import { durableStepTool, type StepToolSpec } from '../durable/step-tool.js';
import { currentStepOf } from './ledgered-step.js';

export type { StepToolSpec } from '../durable/step-tool.js';

/**
 * Wrap `fn` as a tool that runs once per DBOS step and arguments: call the result inside a step
 * (from an AI SDK tool's `execute`, passing its options). The ledger scope is the step
 * (`runId` the workflow, `node` the step), and the identity is `'intent'`, so the tool call id the
 * model gives the call does not take part in its key.
 *
 * @example
 * const charge = ledgeredStepTool(ledger, { name: 'charge', sideEffectClass: 'payment' },
 *   (args: { orderId: string; cents: number }) => payments.charge(args));
 * const tools = { charge: tool({ inputSchema, execute: (args, options) => charge(args, options) }) };
 */
export function ledgeredStepTool<A, R>(
  ledger: Ledger,
  spec: StepToolSpec,
  fn: (args: A, options: CallOptions) => R | Promise<R>,
): LedgeredFunction<A, Awaited<R>> {
  return durableStepTool('ledgeredStepTool', ledger, spec, fn, async (name) => {
    const step = await currentStepOf(name, true);
    return { runId: step.rootWorkflowID, node: `step#${step.stepID}` };
  });
}
