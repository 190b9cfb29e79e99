/**
 * `ledgeredStepTool`: a tool called inside a Workflow DevKit `"use step"` function (an AI SDK tool's
 * `execute` during a model turn the step runs), keyed by the step, the tool name and its arguments,
 * so a retried turn whose model gives the call a new tool call id still meets the first attempt's
 * transition. A `"use step"` directive on the tool itself is a no-op there: a step called from a
 * step runs as a plain function, with no record of its own.
 */
import type { CallOptions, Ledger, LedgeredFunction } from '../../ledger/types.js';
import { durableStepTool, type StepToolSpec } from '../durable/step-tool.js';
import { currentStep, toWorkflowError } from './ledgered-step.js';

export type { StepToolSpec } from '../durable/step-tool.js';

/**
 * Wrap `fn` as a tool that runs once per Workflow step and arguments: call the result inside a
 * `"use step"` function (from an AI SDK tool's `execute`, passing its options). The ledger scope is
 * the step (`runId` the run, `node` the step's `stepId`, the same on every attempt), and the identity
 * is `'intent'`, so the tool call id the model gives the call does not take part in its key. A hard
 * block becomes the engine's non-retryable `FatalError` (see `toWorkflowError`).
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
  return durableStepTool(
    'ledgeredStepTool',
    ledger,
    spec,
    fn,
    (name) => {
      const step = currentStep(name);
      return { runId: step.workflowRunId, node: `step#${step.stepId}` };
    },
    toWorkflowError,
  );
}
