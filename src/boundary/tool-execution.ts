/**
 * One tool call through the boundary, in two phases: `prepareCall` (registry, parse, validate,
 * scope — nothing runs) and `executeWithRetries` (the body, re-run only where that is safe).
 */
import { GuardError } from '../errors.js';
import { InvalidArgumentError, stringArgument } from '../invalid-argument.js';
import type { CallOptions } from '../ledger/types.js';
import { isRerunnable } from '../records/envelope.js';
import { type BoundedTool, type CheckedArgs, isBoundedTool } from './bounded.js';
import type { ToolCallRequest } from './chat.js';
import { ToolBoundaryError, ToolBoundaryExhaustedError, ToolDefinitionError } from './errors.js';
import { unparseableArguments } from './violations.js';

/** Turns a model's raw argument text into a value; throw to refuse it. */
export type ParseToolArgs = (raw: string, call: ToolCallRequest) => unknown;

/** The registry as the runner uses it: anything that returns a tool by name or throws. */
export interface ToolLookup {
  get(name: string): unknown;
}

/** A call that passed every check and is ready to run. */
export interface PreparedCall {
  readonly call: ToolCallRequest;
  readonly tool: BoundedTool;
  readonly checked: CheckedArgs<unknown>;
}

/** JSON.parse, with an empty string read as `{}` (some models send `""` for a tool without arguments). */
export function parseJsonArgs(raw: string): unknown {
  stringArgument('parseJsonArgs', 'raw', raw);
  if (raw.trim() === '') return {};
  try {
    return JSON.parse(raw);
  } catch (cause) {
    throw new InvalidArgumentError('parseJsonArgs', 'raw', `is not JSON: ${(cause as Error).message}`, { cause });
  }
}

/**
 * Look the tool up, parse and check the arguments. Throws `ToolRegistryError` or
 * `ToolBoundaryError` (both fixable by the model); nothing has run.
 */
export async function prepareCall(
  registry: ToolLookup,
  parse: ParseToolArgs,
  call: ToolCallRequest,
): Promise<PreparedCall> {
  const tool = registry.get(call.name);
  if (!isBoundedTool(tool)) {
    throw new ToolDefinitionError(
      call.name,
      'registry',
      'the registered tool is not a bounded tool; wrap it with `bounded`',
    );
  }
  let args = call.args;
  if (typeof args === 'string') {
    const raw = args;
    try {
      args = parse(raw, call);
    } catch (error) {
      // The parser's own words (JSON.parse's), not the wrapper's, are what the model reads.
      const reason = error instanceof Error && error.cause instanceof Error ? error.cause : error;
      throw unparseableArguments(call.name, raw, reason instanceof Error ? reason.message : String(reason));
    }
  }
  return { call, tool, checked: await tool.check(args) };
}

/** True when a failed run may be run again: a re-runnable class, and not a decision made by a guard. */
function mayRetry(tool: BoundedTool, error: unknown, signal: AbortSignal | undefined): boolean {
  if (signal?.aborted === true || !isRerunnable(tool.sideEffectClass)) return false;
  if (error instanceof ToolBoundaryError) return error.violation === 'output_validation_failed';
  // A ledger block or an identity conflict is final for this call; running again would not change it.
  return !(error instanceof GuardError);
}

/**
 * Run a prepared call. A `read` or `idempotent_mutate` body that throws, or whose output fails
 * validation, is run again up to `maxToolRetries` times, then `ToolBoundaryExhaustedError`. Any
 * other class is run once: its error (including `output_validation_failed`) is re-thrown as is.
 */
export async function executeWithRetries(
  prepared: PreparedCall,
  maxToolRetries: number,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  const { tool, checked, call } = prepared;
  const options: CallOptions =
    signal === undefined ? { toolCallId: call.id } : { toolCallId: call.id, abortSignal: signal };
  for (let attempt = 1; ; attempt++) {
    try {
      return await tool.execute(checked, options);
    } catch (error) {
      if (!mayRetry(tool, error, signal)) throw error;
      if (attempt > maxToolRetries)
        throw new ToolBoundaryExhaustedError('tool_retries', attempt, error, { tool: tool.toolName });
    }
  }
}
