/**
 * `answerToolUses`: the `tool_result` message of a hand-written `messages.create` loop, each
 * `tool_use` of the model's message run through the guard pipeline.
 */
import { arrayArgument, checkArguments } from '../../invalid-argument.js';
import { isAbortError } from '../shared/abort.js';
import type { GuardRun } from '../shared/run-types.js';
import type { ToolCallOutcome } from '../shared/types.js';
import { resultContent } from './tool-result.js';
import type { AnthropicRunnableToolLike, AnthropicToolResultBlock, AnthropicToolResultMessage } from './types.js';

interface ToolUse {
  readonly id: string;
  readonly name: string;
  readonly input: unknown;
}

function toolUsesOf(content: unknown): ToolUse[] {
  if (!Array.isArray(content)) return [];
  const uses: ToolUse[] = [];
  for (const block of content) {
    if (typeof block !== 'object' || block === null) continue;
    const { type, id, name, input } = block as { type?: unknown; id?: unknown; name?: unknown; input?: unknown };
    if (type === 'tool_use' && typeof id === 'string' && typeof name === 'string') uses.push({ id, name, input });
  }
  return uses;
}

function answer(use: ToolUse, outcome: ToolCallOutcome, signal: AbortSignal | undefined): AnthropicToolResultBlock {
  switch (outcome.status) {
    case 'ok':
      return { type: 'tool_result', tool_use_id: use.id, content: resultContent(outcome.result) as string | never[] };
    case 'refused':
      return { type: 'tool_result', tool_use_id: use.id, content: outcome.message, is_error: true };
    case 'error':
      if (isAbortError(outcome.error, signal)) throw outcome.error;
      return { type: 'tool_result', tool_use_id: use.id, content: outcome.message, is_error: true };
  }
}

function notParsed(use: ToolUse, error: unknown): AnthropicToolResultBlock {
  const why = error instanceof Error ? error.message : String(error);
  return {
    type: 'tool_result',
    tool_use_id: use.id,
    content: `The call to \`${use.name}\` was NOT executed: its input is invalid: ${why}`,
    is_error: true,
  };
}

async function answerOne(
  use: ToolUse,
  tool: AnthropicRunnableToolLike | undefined,
  guards: GuardRun,
  signal: AbortSignal | undefined,
): Promise<AnthropicToolResultBlock> {
  let args = use.input;
  if (tool?.parse !== undefined) {
    try {
      args = tool.parse(use.input);
    } catch (error) {
      return notParsed(use, error);
    }
  }
  const run = tool?.run as ((args: unknown, context: unknown) => unknown) | undefined;
  const outcome = await guards.executeToolCall(
    { id: use.id, name: use.name, args },
    run === undefined ? undefined : (checked) => run.call(tool, checked, { toolUse: use, signal }),
    { abortSignal: signal },
  );
  return answer(use, outcome, signal);
}

/**
 * The user message that answers every `tool_use` of `message` (an assistant reply of
 * `messages.create`), or `null` when it has none. Each call goes through the pipeline with the
 * runnable tool of its name (its `parse`, then its `run`), in the order the model wrote them; a
 * call without a tool, or one the guards refused, is answered with `is_error` and a note that it
 * was NOT executed, so the next request's history stays valid. Aborts are re-thrown.
 *
 * @example
 * import Anthropic from '@anthropic-ai/sdk';
 * import { answerToolUses, guardAnthropicClient } from 'hyphae/anthropic';
 *
 * const guards = pipeline.forRun({ threadId: 'thread-1', runId: 'run-1' });
 * const client = guardAnthropicClient(new Anthropic(), guards);
 * for (;;) {
 *   const reply = await client.messages.create({ model, max_tokens: 1024, messages, tools: definitions });
 *   messages.push({ role: reply.role, content: reply.content });
 *   const results = await answerToolUses(reply, tools, guards);
 *   if (results === null) break;
 *   messages.push(results);
 * }
 */
export async function answerToolUses(
  message: { readonly content: unknown },
  tools: readonly AnthropicRunnableToolLike[],
  guards: GuardRun,
  options: { readonly signal?: AbortSignal | undefined } = {},
): Promise<AnthropicToolResultMessage | null> {
  checkArguments('answerToolUses', { message, guards, options });
  arrayArgument('answerToolUses', 'tools', tools);
  const uses = toolUsesOf(message.content);
  if (uses.length === 0) return null;
  const byName = new Map(tools.map((tool) => [tool.name, tool]));
  const content: AnthropicToolResultBlock[] = [];
  for (const use of uses) content.push(await answerOne(use, byName.get(use.name), guards, options.signal));
  return { role: 'user', content };
}
