/**
 * The engine-neutral core of a tool called inside a durable engine's step (an AI SDK tool's
 * `execute` during a model turn the step runs): keyed by the step, the tool name and its arguments,
 * so a retried turn whose model gives the call a new tool call id still meets the first attempt's
 * transition.
 */
import { checkArguments, InvalidArgumentError, recordArgument } from '../../invalid-argument.js';
import type { CallOptions, Ledger, LedgeredFunction, ToolSpec } from '../../ledger/types.js';
import type { LedgerScope } from '../../records/transition-record.js';

/** The ledger declaration of a step tool: its identity is always the intent (step, name, arguments). */
export type StepToolSpec = Omit<ToolSpec, 'identity'>;

/**
 * Wrap `fn` as a tool run once per step and arguments: `scopeOfStep` names the step running now (it
 * throws outside one), and `engineError` turns the ledger's errors into the engine's (a hard block
 * into its non-retryable failure). The identity is `'intent'`: the tool call id takes no part.
 */
export function durableStepTool<A, R>(
  entry: string,
  ledger: Ledger,
  spec: StepToolSpec,
  fn: (args: A, options: CallOptions) => R | Promise<R>,
  scopeOfStep: (name: string | undefined) => LedgerScope | Promise<LedgerScope>,
  engineError: (error: unknown) => unknown = (error) => error,
): LedgeredFunction<A, Awaited<R>> {
  recordArgument(entry, 'ledger', ledger, ['tool']);
  checkArguments(entry, { spec }, []);
  if (typeof fn !== 'function') throw new InvalidArgumentError(entry, 'fn', 'must be a function');
  const tool = ledger.tool<A, R>({ ...spec, identity: 'intent' }, fn);
  return async function stepTool(args: A, options: CallOptions = {}): Promise<Awaited<R>> {
    const scope = await scopeOfStep(spec?.name);
    try {
      return await tool(args, { ...options, scope });
    } catch (error) {
      throw engineError(error);
    }
  };
}
