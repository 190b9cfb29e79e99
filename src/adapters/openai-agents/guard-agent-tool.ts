/**
 * `guardAgentTool` and `guardAgentTools`: an `@openai/agents` function tool whose `invoke` (the
 * execution boundary the runner calls) runs through the guard pipeline.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { GuardError, InvalidOptionError } from '../../errors.js';
import { checkArguments } from '../../invalid-argument.js';
import { isAbortError } from '../shared/abort.js';
import type { ToolCallOutcome } from '../shared/types.js';
import { stoppedRunGuardrail } from './input-guardrail.js';
import { type AgentRunRegistry, agentRunRegistry, toPipeline } from './run-registry.js';
import type { AgentFunctionToolLike, AgentGuards, AgentToolLike, GuardAgentToolOptions } from './types.js';

/** What the runner passes as `invoke`'s third argument. */
interface ToolCallDetails {
  readonly toolCall?: { readonly callId?: unknown };
  readonly signal?: AbortSignal | undefined;
}

/** The arguments text to hand the tool: the model's own when validation changed nothing. */
function inputFor(args: unknown, input: string): string {
  try {
    if (canonicalJson(args) === canonicalJson(input.trim() === '' ? {} : JSON.parse(input))) return input;
  } catch {
    // Not comparable: hand over the validated arguments.
  }
  return JSON.stringify(args ?? {});
}

/**
 * What the SDK's default `errorFunction` answers when a tool throws. `invoke` catches the tool's
 * error and returns this text, so the guards would otherwise book a failed call as a result: the
 * ledger as completed, the loop fuse as a repeated result.
 */
const SDK_DEFAULT_TOOL_ERROR = 'An error occurred while running the tool. Please try again.';

/** A tool call that failed inside `invoke`, carrying the answer the SDK gave for it. */
class AgentToolFailed extends Error {
  readonly answer: string;

  constructor(answer: string) {
    super(answer);
    this.name = 'AgentToolFailed';
    this.answer = answer;
  }
}

function guardedInvoke(tool: AgentFunctionToolLike, registry: AgentRunRegistry, options: GuardAgentToolOptions) {
  const invoke = tool.invoke as (runContext: unknown, input: string, details?: unknown) => Promise<unknown>;
  return async function invokeGuarded(runContext: unknown, input: string, details?: unknown): Promise<unknown> {
    const run = registry.runFor(runContext, options);
    const callDetails = (typeof details === 'object' && details !== null ? details : {}) as ToolCallDetails;
    const callId = typeof callDetails.toolCall?.callId === 'string' ? callDetails.toolCall.callId : undefined;
    const signal = callDetails.signal;
    const outcome = await run.executeToolCall(
      { id: callId, name: tool.name, argsText: input },
      async (args) => {
        const answer = await invoke.call(tool, runContext, inputFor(args, input), details);
        // Booked as the failure it was (a retry allowance, not a loop; not a stored result).
        if (answer === SDK_DEFAULT_TOOL_ERROR) throw new AgentToolFailed(answer);
        return answer;
      },
      { abortSignal: signal },
    );
    return answerOf(outcome, signal);
  };
}

function answerOf(outcome: ToolCallOutcome, signal: AbortSignal | undefined): unknown {
  switch (outcome.status) {
    case 'ok':
      return outcome.result;
    case 'refused':
      return outcome.message;
    case 'error':
      if (outcome.error instanceof AgentToolFailed) return outcome.error.answer;
      // The SDK decides what a tool's own throw means (a timeout, a fatal input error): re-thrown.
      if (isAbortError(outcome.error, signal) || !(outcome.error instanceof GuardError)) throw outcome.error;
      return outcome.message;
  }
}

function wrap<T extends AgentFunctionToolLike>(tool: T, registry: AgentRunRegistry, options: GuardAgentToolOptions): T {
  const inputGuardrails =
    options.haltOnStop === false
      ? tool.inputGuardrails
      : [stoppedRunGuardrail(registry, options), ...(tool.inputGuardrails ?? [])];
  // A copy with every property (symbols too) of the original, which stays as it was.
  const copy = Object.create(Object.getPrototypeOf(tool), Object.getOwnPropertyDescriptors(tool)) as T;
  Object.defineProperty(copy, 'invoke', {
    value: guardedInvoke(tool, registry, options),
    writable: true,
    configurable: true,
    enumerable: true,
  });
  if (inputGuardrails !== undefined) {
    Object.defineProperty(copy, 'inputGuardrails', {
      value: inputGuardrails,
      writable: true,
      configurable: true,
      enumerable: true,
    });
  }
  return copy;
}

function isFunctionTool(tool: AgentToolLike): tool is AgentToolLike & AgentFunctionToolLike {
  return tool.type === 'function' && typeof (tool as { invoke?: unknown }).invoke === 'function';
}

/**
 * Guard one `@openai/agents` function tool: every call runs through the pipeline (registry,
 * fuses, argument validation, ledger keyed by the run scope, the arguments and the call id,
 * output validation). A blocked call is answered with a refusal that says it did NOT happen, as
 * the tool's output for the same call id. Aborts and the tool's own fatal errors are re-thrown.
 *
 * The tool body's errors usually reach the model through the tool's `errorFunction` as a normal
 * output, so the ledger records such a call as completed: a redispatch of it is not run again.
 *
 * @example
 * import { Agent, run, tool } from '@openai/agents';
 * import { guardAgentTool } from 'hyphae/openai-agents';
 *
 * const sendPayment = guardAgentTool(tool({ name: 'send_payment', parameters, execute }), {
 *   ledger,
 *   tools: { send_payment: { sideEffectClass: 'payment' } },
 * });
 * const agent = new Agent({ name: 'billing', tools: [sendPayment] });
 * await run(agent, 'Pay invoice 7', { context: { threadId: 'thread-1', runId: 'run-1' } });
 */
export function guardAgentTool<T extends AgentFunctionToolLike>(
  tool: T,
  guards: AgentGuards,
  options: GuardAgentToolOptions = {},
): T {
  checkArguments('guardAgentTool', { tool, guards, options });
  if (!isFunctionTool(tool)) {
    const name = String((tool as AgentToolLike).name);
    throw new InvalidOptionError('tool', `\`guardAgentTool\` wraps function tools; \`${name}\` is not one`);
  }
  return wrap(tool, agentRunRegistry(toPipeline(guards)), options);
}

/** Guard every function tool of a list (hosted and other tools are returned as they are). */
export function guardAgentTools<T extends AgentToolLike>(
  tools: readonly T[],
  guards: AgentGuards,
  options: GuardAgentToolOptions = {},
): T[] {
  const registry = agentRunRegistry(toPipeline(guards));
  return tools.map((tool) => (isFunctionTool(tool) ? (wrap(tool, registry, options) as T) : tool));
}
