/**
 * `guardClaudeAgent`: the guard pipeline at the Claude Agent SDK's front door. `query()` runs the
 * Claude Code binary, which executes its built-in tools itself: the adapter decides on every call
 * in `PreToolUse` (a denial's reason is what the model reads), books results in `PostToolUse` and
 * `PostToolUseFailure`, ends the query with `continue: false` once the run is stopped (a denial
 * alone is not a stop: the model may keep asking), and runs the bodies of in-process tools
 * (`createSdkMcpServer`) through the ledger.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { InvalidOptionError } from '../../errors.js';
import type { FuseRun } from '../../fuses/run-box.js';
import { arrayArgument, optionsOf } from '../../invalid-argument.js';
import { toGuardPipeline } from '../pipeline.js';
import type { GuardRun } from '../shared/run-types.js';
import type { GuardRefusal, ToolCallOutcome } from '../shared/types.js';
import { createQueryBudget } from './query-budget.js';
import type {
  ClaudeAgentGuardOptions,
  ClaudeAgentGuards,
  ClaudeCallToolResult,
  ClaudeCanUseTool,
  ClaudeHookCallback,
  ClaudeHookInput,
  ClaudeHookOutput,
  ClaudeSdkMessageLike,
  ClaudeSdkToolLike,
} from './types.js';

/** The answer the admission check gives in place of a body: the call passed every guard. */
const ADMITTED: unique symbol = Symbol('admitted');

/** Where Claude Code puts the `tool_use` id in an in-process tool's `extra`. */
const TOOL_USE_ID_META = 'claudecode/toolUseId';

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function textOf(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The tool call a tool hook is about, or undefined for any other event. */
function callOf(input: ClaudeHookInput, toolUseID: string | undefined) {
  const agentName = textOf(field(input, 'tool_name'));
  if (agentName === undefined) return undefined;
  const id = textOf(field(input, 'tool_use_id')) ?? textOf(toolUseID);
  const args = field(input, 'tool_input') ?? {};
  return { id, agentName, args };
}

function endQuery(refusal: GuardRefusal): ClaudeHookOutput {
  return { continue: false, stopReason: refusal.reason };
}

function refusalOf(outcome: ToolCallOutcome): GuardRefusal | undefined {
  return outcome.status === 'refused' ? outcome : undefined;
}

/**
 * The guards of one Claude Agent SDK query: `hooks` to spread into `options.hooks`, a
 * `canUseTool`, in-process tools whose bodies go through the ledger, and `observe` for the usage of
 * the query's assistant messages (the budget fuse). Built-in tools (Bash, Write, …) run in the
 * Claude Code binary: the guards allow or deny them, and the ledger never holds their effects.
 *
 * @example
 * import { createSdkMcpServer, query, tool } from '@anthropic-ai/claude-agent-sdk';
 * import { createFuseBox, loopFuse } from 'hyphae';
 * import { guardClaudeAgent } from 'hyphae/claude-agent-sdk';
 *
 * const agent = guardClaudeAgent({
 *   guards: { fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }) },
 *   runId: 'run-1',
 * });
 * const pay = createSdkMcpServer({ name: 'pay', tools: agent.guardTools('pay', [chargeTool]) });
 * for await (const message of query({
 *   prompt: 'Pay invoice 7',
 *   options: { hooks: { ...agent.hooks }, canUseTool: agent.canUseTool, mcpServers: { pay } },
 * })) agent.observe(message);
 */
export function guardClaudeAgent(given: ClaudeAgentGuardOptions): ClaudeAgentGuards {
  const options = optionsOf('guardClaudeAgent', given);
  const pipeline = toGuardPipeline(options.guards);
  const approve = options.approve;
  if (approve !== undefined && typeof approve !== 'function') {
    throw new InvalidOptionError('approve', '`approve` must be a function');
  }
  const { model, maxOutputTokens } = options;
  if (model !== undefined && (typeof model !== 'string' || model === '')) {
    throw new InvalidOptionError('model', `\`model\` must be a model name, got \`${String(model)}\``);
  }
  if (maxOutputTokens !== undefined && (!Number.isInteger(maxOutputTokens) || maxOutputTokens < 1)) {
    throw new InvalidOptionError(
      'maxOutputTokens',
      `\`maxOutputTokens\` must be a positive integer, got \`${String(maxOutputTokens)}\``,
    );
  }
  const run: GuardRun = pipeline.forRun({
    runId: options.runId,
    ...(options.threadId === undefined ? {} : { threadId: options.threadId }),
  });
  // The fuse run the guard run drives (the same object while the run lives): results of built-in
  // tools and usage of model calls are booked on it directly, since the pipeline runs neither.
  const fuseKey = run.threadId === undefined ? run.runId : canonicalJson([run.threadId, run.runId]);
  const fuseRun = (): FuseRun | undefined => pipeline.fuses?.forRun(fuseKey);
  // The in-process tools whose bodies the pipeline runs, by the name the agent calls them
  // (`mcp__<server>__<tool>`): the guards know them by their own name, as in every other front door.
  const inProcess = new Map<string, string>();
  const budget = createQueryBudget({ run, fuseRun, model, maxOutputTokens });
  // Call ids the hooks (or `canUseTool`) checked, and those whose result went back to the model.
  const admitted = new Set<string>();
  const answered = new Set<string>();

  /**
   * Registry, fuses and argument checks for a call, without its body: the pipeline answers it in
   * place of the ledger claim. The same call id asked again (from `canUseTool`, or by the guarded
   * body) is a redispatch and gets this verdict without being counted twice.
   */
  async function admit(id: string | undefined, name: string, args: unknown): Promise<ToolCallOutcome> {
    if (id !== undefined) {
      // A call id whose result the model already has, asked for again: the model's next turn
      // re-sends it (counted), not a redispatch of the call in flight (given its first verdict).
      if (answered.has(id)) {
        answered.clear();
        run.beginTurn();
      }
      admitted.add(id);
    }
    return run.executeToolCall({ id, name, args }, () => ADMITTED, {
      beforeClaim: async () => ({ answer: ADMITTED }),
    });
  }

  const preToolUse: ClaudeHookCallback = async function hyphaePreToolUse(input, toolUseID) {
    const call = callOf(input, toolUseID);
    if (call === undefined) return {};
    const outcome = await admit(call.id, inProcess.get(call.agentName) ?? call.agentName, call.args);
    // A call that runs is followed by a model request carrying its result: one the budget cannot
    // take even without that result stops the run before the call.
    const stop = outcome.status === 'ok' ? budget.preflight(call.id) : null;
    if (outcome.status === 'ok' && stop === null) return {};
    const reason = outcome.status === 'ok' ? (stop as GuardRefusal).message : outcome.message;
    const stopped = run.stopped;
    return {
      ...(stopped === null ? {} : endQuery(stopped)),
      hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason },
    };
  };

  const postToolUse: ClaudeHookCallback = async function hyphaePostToolUse(input, toolUseID) {
    const call = callOf(input, toolUseID);
    const failed = input.hook_event_name === 'PostToolUseFailure';
    if (call?.id !== undefined) answered.add(call.id);
    if (call !== undefined && !inProcess.has(call.agentName)) {
      const record = { ...(call.id === undefined ? {} : { id: call.id }), name: call.agentName, args: call.args };
      if (failed) fuseRun()?.recordToolResult(record, { ok: false });
      else fuseRun()?.recordToolResult({ ...record, result: field(input, 'tool_response') });
    }
    // The result goes back to the model with the next request: the budget's pre-flight of it.
    budget.add({ tool_use_id: call?.id, content: field(input, failed ? 'error' : 'tool_response') });
    const stopped = budget.preflight(call?.id);
    return stopped === null ? {} : endQuery(stopped);
  };

  const userPromptSubmit: ClaudeHookCallback = async function hyphaeUserPromptSubmit(input) {
    budget.add(field(input, 'prompt'));
    const stopped = budget.preflight();
    return stopped === null ? {} : endQuery(stopped);
  };

  const canUseTool: ClaudeCanUseTool = async function hyphaeCanUseTool(toolName, input, permission) {
    const id = textOf(permission?.toolUseID);
    const outcome = await admit(id, inProcess.get(toolName) ?? toolName, input);
    const refusal = refusalOf(outcome);
    if (refusal !== undefined) return { behavior: 'deny', message: refusal.message, interrupt: run.stopped !== null };
    if (outcome.status === 'error') return { behavior: 'deny', message: outcome.message };
    if (approve !== undefined) {
      let answer: unknown;
      try {
        answer = await approve({ toolName, input: { ...input }, toolUseId: id, signal: permission.signal });
      } catch {
        answer = { deny: 'the approval could not be asked' };
      }
      // Anything but an explicit `true` refuses: an approval that did not answer is no approval.
      if (answer !== true) {
        const why = textOf(field(answer, 'deny')) ?? 'it was not approved';
        return {
          behavior: 'deny',
          message: `The call to \`${toolName}\` was NOT executed: ${why}. Do not retry it; tell the user it needs approval`,
        };
      }
    }
    return { behavior: 'allow', updatedInput: { ...input } };
  };

  function guardTools<T extends ClaudeSdkToolLike<never>>(server: string, tools: readonly T[]): T[] {
    if (typeof server !== 'string' || server === '') {
      throw new InvalidOptionError('server', `\`server\` must be the MCP server's name, got \`${String(server)}\``);
    }
    arrayArgument('guardTools', 'tools', tools);
    return tools.map((tool) => {
      if (typeof tool?.handler !== 'function' || typeof tool.name !== 'string') {
        throw new InvalidOptionError('tools', 'Every tool must be an in-process tool with a `name` and a `handler`');
      }
      const name = tool.name;
      const agentName = `mcp__${server}__${name}`;
      if ([...inProcess].some(([other, known]) => known === name && other !== agentName)) {
        throw new InvalidOptionError(
          'tools',
          `Two in-process tools are named \`${name}\`: the guards know a tool by its name`,
        );
      }
      inProcess.set(agentName, name);
      const handler = tool.handler as (args: unknown, extra: unknown) => Promise<ClaudeCallToolResult>;
      const guarded = async function handlerGuarded(args: unknown, extra: unknown): Promise<ClaudeCallToolResult> {
        const id = textOf(field(field(extra, '_meta'), TOOL_USE_ID_META));
        const signal = field(extra, 'signal');
        const outcome = await run.executeToolCall({ id, name, args }, (checked) => handler(checked, extra), {
          ...(signal instanceof AbortSignal ? { abortSignal: signal } : {}),
        });
        if (id !== undefined) answered.add(id);
        // The pipeline books a failed body, except on the call id `PreToolUse` checked first (a
        // redispatch to it): booked here, so an identical retry counts against the retry allowance.
        if (id !== undefined && admitted.delete(id) && outcome.status === 'error' && outcome.executed) {
          fuseRun()?.recordToolResult({ id, name, args }, { ok: false });
        }
        if (outcome.status === 'ok') return outcome.result as ClaudeCallToolResult;
        return { content: [{ type: 'text', text: outcome.message }], isError: true };
      };
      return { ...tool, handler: guarded };
    }) as unknown as T[];
  }

  return Object.freeze({
    hooks: Object.freeze({
      UserPromptSubmit: [{ hooks: [userPromptSubmit] }],
      PreToolUse: [{ hooks: [preToolUse] }],
      PostToolUse: [{ hooks: [postToolUse] }],
      PostToolUseFailure: [{ hooks: [postToolUse] }],
    }),
    canUseTool,
    guardTools,
    observe: (message: ClaudeSdkMessageLike) => budget.observe(message),
    run,
  });
}
