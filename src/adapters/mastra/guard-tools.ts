/**
 * `guardMastraTools`: Mastra tools (`createTool`, or AI SDK tools) whose `execute` runs through
 * the guard pipeline. Everything else of a tool (schemas, description, approval, `toModelOutput`)
 * is kept as it is.
 */
import { GuardError } from '../../errors.js';
import { checkArguments } from '../../invalid-argument.js';
import { isAbortError } from '../shared/abort.js';
import { ToolCallFailedError, ToolCallRefusedError } from '../shared/errors.js';
import type { ToolCallOutcome, ToolCallRefusal } from '../shared/types.js';
import { type MastraRunRegistry, mastraRunRegistry, toPipeline } from './run-registry.js';
import type { GuardMastraToolsOptions, MastraGuards, MastraToolLike } from './types.js';

/** What Mastra passes to `execute`, as far as the guards read it. */
interface ExecutionContext {
  readonly agent?: { readonly toolCallId?: unknown } | undefined;
  readonly toolCallId?: unknown;
  readonly requestContext?: unknown;
  readonly abortSignal?: AbortSignal | undefined;
}

type Execute = (input: unknown, context?: ExecutionContext) => unknown;

/**
 * A refusal as Mastra shows it: the model reads a tool error's `message`, so here the message is
 * the note for the model; `refusal.reason` keeps the operator's words.
 */
class MastraToolRefusedError extends ToolCallRefusedError {
  constructor(toolName: string, toolCallId: string | undefined, refusal: ToolCallRefusal) {
    super(toolName, toolCallId, refusal);
    this.message = this.llmMessage;
  }
}

/** A guard's explanation of a failed call, with the note for the model as its message. */
class MastraToolFailedError extends ToolCallFailedError {
  constructor(
    toolName: string,
    toolCallId: string | undefined,
    failure: Extract<ToolCallOutcome, { status: 'error' }>,
  ) {
    super(toolName, toolCallId, failure);
    this.message = this.llmMessage;
  }
}

/**
 * A `createTool` tool answers input it cannot validate with `{ error: true, message }` instead of
 * throwing; the guards book it as the failure it is (a retry allowance, not a stored result).
 */
class MastraToolAnsweredError extends Error {
  readonly answer: unknown;

  constructor(answer: { readonly message: string }) {
    super(answer.message);
    this.name = 'MastraToolAnsweredError';
    this.answer = answer;
  }
}

function isErrorAnswer(value: unknown): value is { readonly error: true; readonly message: string } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { error?: unknown }).error === true &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}

function callIdOf(context: ExecutionContext | undefined): string | undefined {
  const id = context?.agent?.toolCallId ?? context?.toolCallId;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

function answerOf(name: string, id: string | undefined, outcome: ToolCallOutcome, signal?: AbortSignal): unknown {
  switch (outcome.status) {
    case 'ok':
      return outcome.result;
    case 'refused':
      throw new MastraToolRefusedError(name, id, outcome);
    case 'error': {
      const { error } = outcome;
      if (error instanceof MastraToolAnsweredError) return error.answer;
      // Aborts and the tool's own errors go back as they are; a guard's explanation is wrapped.
      if (isAbortError(error, signal) || !(error instanceof GuardError) || error.llmMessage === undefined) throw error;
      throw new MastraToolFailedError(name, id, outcome);
    }
  }
}

function guardExecute(
  name: string,
  tool: object,
  execute: Execute,
  registry: MastraRunRegistry,
  options: GuardMastraToolsOptions,
): Execute {
  return async function guardedExecute(input, context) {
    const run = registry.runFor(context?.requestContext, options);
    const id = callIdOf(context);
    const signal = context?.abortSignal;
    const outcome = await run.executeToolCall(
      { id, name, args: input },
      async (args) => {
        const answer = await execute.call(tool, args, context);
        if (isErrorAnswer(answer)) throw new MastraToolAnsweredError(answer);
        return answer;
      },
      { abortSignal: signal },
    );
    return answerOf(name, id, outcome, signal);
  };
}

/** A copy of `tool` (its prototype and every property, symbols too) with `execute` replaced. */
function withExecute<T extends object>(tool: T, execute: Execute): T {
  const copy = Object.create(Object.getPrototypeOf(tool), Object.getOwnPropertyDescriptors(tool)) as T;
  Object.defineProperty(copy, 'execute', { value: execute, writable: true, configurable: true, enumerable: true });
  return copy;
}

/** Wrap the tools of a record over one registry. */
export function guardToolRecord<T extends Readonly<Record<string, MastraToolLike>>>(
  tools: T,
  registry: MastraRunRegistry,
  options: GuardMastraToolsOptions,
): T {
  const guarded: Record<string, MastraToolLike> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = typeof tool === 'object' && tool !== null ? tool.execute : undefined;
    guarded[name] =
      typeof execute === 'function'
        ? withExecute(tool, guardExecute(name, tool, execute as Execute, registry, options))
        : tool;
  }
  return guarded as T;
}

/**
 * Guard the tools of a Mastra agent: each call runs through the pipeline (registry, fuses,
 * argument validation, ledger keyed by the run scope, the arguments and the call id Mastra gives
 * in `context.agent.toolCallId`, output validation), in the run the `RequestContext` names. A
 * refused call throws an error whose message is the refusal's note, which Mastra gives the model
 * as the call's error result: it says the call did NOT happen. Aborts and the tool's own errors
 * are re-thrown as they are. Tools without `execute` are kept as they are; the input is not
 * mutated. Add {@link hyphaeProcessor} (or use `withGuards`) so a run the guards stopped ends.
 *
 * @example
 * import { Agent } from '@mastra/core/agent';
 * import { createTool } from '@mastra/core/tools';
 * import { guardMastraTools, hyphaeProcessor } from 'hyphae/mastra';
 *
 * const processor = hyphaeProcessor(pipeline);
 * const agent = new Agent({
 *   id: 'billing',
 *   name: 'billing',
 *   instructions: 'You pay invoices',
 *   model,
 *   tools: guardMastraTools({ send_payment: createTool({ id: 'send_payment', inputSchema, execute }) }, pipeline),
 *   inputProcessors: [processor],
 *   outputProcessors: [processor],
 * });
 */
export function guardMastraTools<T extends Readonly<Record<string, MastraToolLike>>>(
  tools: T,
  guards: MastraGuards,
  options: GuardMastraToolsOptions = {},
): T {
  checkArguments('guardMastraTools', { tools, guards, options });
  return guardToolRecord(tools, mastraRunRegistry(toPipeline(guards)), options);
}
