/**
 * `guardRunnableTool` and `guardRunnableTools`: a runnable tool of `@anthropic-ai/sdk` (same name,
 * schema and `parse`) whose `run` goes through the guard pipeline.
 */
import { InvalidOptionError } from '../../errors.js';
import { arrayArgument, checkArguments } from '../../invalid-argument.js';
import type { GuardRun } from '../shared/run-types.js';
import { contentOrThrow } from './tool-result.js';
import type { AnthropicRunnableToolLike, AnthropicToolLike, AnthropicToolRunContext } from './types.js';

function isRunnable(tool: AnthropicToolLike): tool is AnthropicRunnableToolLike {
  const { name, run } = tool as { name?: unknown; run?: unknown };
  return typeof name === 'string' && typeof run === 'function';
}

function contextOf(value: unknown): AnthropicToolRunContext {
  return typeof value === 'object' && value !== null ? (value as AnthropicToolRunContext) : {};
}

function wrap<T extends AnthropicRunnableToolLike>(tool: T, guards: GuardRun): T {
  const run = tool.run as (args: unknown, context?: unknown) => unknown;
  const name = tool.name;
  async function runGuarded(args: unknown, context?: unknown): Promise<unknown> {
    const given = contextOf(context);
    const id = typeof given.toolUse?.id === 'string' && given.toolUse.id !== '' ? given.toolUse.id : undefined;
    const signal = given.signal ?? undefined;
    const outcome = await guards.executeToolCall({ id, name, args }, (checked) => run.call(tool, checked, context), {
      abortSignal: signal,
    });
    return contentOrThrow(outcome, signal);
  }
  // A copy with every property (symbols too) of the original, which stays as it was.
  const copy = Object.create(Object.getPrototypeOf(tool), Object.getOwnPropertyDescriptors(tool)) as T;
  Object.defineProperty(copy, 'run', { value: runGuarded, writable: true, configurable: true, enumerable: true });
  return copy;
}

/**
 * Guard one runnable tool of `@anthropic-ai/sdk` (`betaZodTool`, `betaTool`): the copy has the
 * same name, schema and `parse`, and its `run` goes through the pipeline — registry, fuses,
 * argument validation, the ledger (keyed by the run's scope and the arguments, with the `tool_use`
 * id as its ticket), the body, output validation. A refused call throws a `ToolError`, which the
 * runner answers as a `tool_result` with `is_error` saying the call was NOT executed; aborts and
 * the body's own errors are thrown as they are.
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk';
 * import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
 * import { guardRunnableTool } from 'hyphae/anthropic';
 *
 * const guards = pipeline.forRun({ threadId: 'thread-1', runId: 'run-1' });
 * const sendPayment = guardRunnableTool(betaZodTool({ name: 'send_payment', inputSchema, description, run }), guards);
 * await new Anthropic().beta.messages.toolRunner({ model, max_tokens: 1024, messages, tools: [sendPayment] });
 */
export function guardRunnableTool<T extends AnthropicRunnableToolLike>(tool: T, guards: GuardRun): T {
  checkArguments('guardRunnableTool', { tool, guards });
  if (!isRunnable(tool)) {
    throw new InvalidOptionError('tool', '`guardRunnableTool` wraps runnable tools: a `name` and a `run` function');
  }
  return wrap(tool, guards);
}

/** Guard every runnable tool of a runner's `tools` (server tools, plain definitions and toolsets stay as they are). */
export function guardRunnableTools<T extends AnthropicToolLike>(tools: readonly T[], guards: GuardRun): T[] {
  arrayArgument('guardRunnableTools', 'tools', tools);
  checkArguments('guardRunnableTools', { guards });
  return tools.map((tool) => (isRunnable(tool) ? (wrap(tool, guards) as T) : tool));
}
