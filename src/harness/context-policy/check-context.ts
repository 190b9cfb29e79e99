/**
 * The invariants every context a model is sent must hold, whatever policy shaped it.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { ContextPolicyError } from '../errors.js';
import type { ModelMessage } from '../models/types.js';

function same(a: ModelMessage | undefined, b: ModelMessage | undefined): boolean {
  if (a === b) return true;
  if (a === undefined || b === undefined) return false;
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}

/**
 * Check a policy's result against the full transcript: system message first and unchanged, run
 * prompt kept unchanged (after it, only messages of this run), every assistant tool call
 * immediately answered by one tool message per call in call order, and no tool message
 * anywhere else. Throws {@link ContextPolicyError}.
 */
export function checkContext(
  policy: string,
  result: readonly ModelMessage[],
  transcript: readonly ModelMessage[],
  runPromptIndex: number,
): void {
  if (!Array.isArray(result)) throw new ContextPolicyError(policy, null, 'expected an array of messages');
  if (!same(result[0], transcript[0]))
    throw new ContextPolicyError(policy, 0, 'the system message must come first, unchanged');
  const runPrompt = transcript[runPromptIndex];
  const pinned = result.findIndex((message) => same(message, runPrompt));
  if (pinned === -1) throw new ContextPolicyError(policy, null, 'the run prompt was dropped or changed');
  for (let i = 1; i < result.length; i++) {
    const message = result[i] as ModelMessage;
    if (message.role === 'system')
      throw new ContextPolicyError(policy, i, 'only the first message may be a system message');
    if (message.role === 'tool')
      throw new ContextPolicyError(policy, i, `tool result \`${message.toolCallId}\` does not follow its tool call`);
    if (message.role !== 'assistant' || (message.toolCalls ?? []).length === 0) continue;
    if (i < pinned) throw new ContextPolicyError(policy, i, 'a tool call comes before the run prompt');
    for (const call of message.toolCalls ?? []) {
      const answer = result[++i];
      if (answer?.role !== 'tool' || answer.toolCallId !== call.id) {
        throw new ContextPolicyError(
          policy,
          i,
          `tool call \`${call.id}\` of \`${call.name}\` is not immediately followed by its result`,
        );
      }
    }
  }
}
