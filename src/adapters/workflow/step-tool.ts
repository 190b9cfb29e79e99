/**
 * `ledgeredStepTool`: a tool called inside a Workflow DevKit `"use step"` function (an AI SDK tool's
 * `execute` during a model turn the step runs), keyed by the step, the tool name and its arguments,
 * so a retried turn whose model gives the call a new tool call id still meets the first attempt's
 * transition. A `"use step"` directive on the tool itself is a no-op there: a step called from a
 * step runs as a plain function, with no record of its own.
 */
import { checkArguments, InvalidArgumentError, recordArgument } from '../../invalid-argument.js';
import type { CallOptions, Ledger, LedgeredFunction, ToolSpec } from '../../ledger/types.js';
import { currentStep, toWorkflowError } from './ledgered-step.js';

/** The ledger declaration of a step tool: its identity is always the intent (step, name, arguments). */
export type StepToolSpec = Omit<ToolSpec, 'identity'>;

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
  recordArgument('ledgeredStepTool', 'ledger', ledger, ['tool']);
  checkArguments('ledgeredStepTool', { spec }, []);
  if (typeof fn !== 'function') throw new InvalidArgumentError('ledgeredStepTool', 'fn', 'must be a function');
  const tool = ledger.tool<A, R>({ ...spec, identity: 'intent' }, fn);
  return async function stepTool(args: A, options: CallOptions = {}): Promise<Awaited<R>> {
    const step = currentStep(spec?.name);
    try {
      return await tool(args, { ...options, scope: { runId: step.workflowRunId, node: `step#${step.stepId}` } });
    } catch (error) {
      throw toWorkflowError(error);
    }
  };
}
