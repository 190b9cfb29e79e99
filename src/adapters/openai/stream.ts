/**
 * A streamed Chat Completion read to its end: the deltas of each chunk folded into the one
 * completion the loop reads (text, tool calls by index, usage from the last chunk).
 */
import { GuardError } from '../../errors.js';
import type { OpenAiChatCompletion, OpenAiChatCompletionChunk, OpenAiToolCall } from './types.js';

interface CallParts {
  id: string;
  name: string;
  args: string;
}

/** True for what `create({ stream: true })` resolves to. */
export function isChunkStream(value: unknown): value is AsyncIterable<OpenAiChatCompletionChunk> {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/**
 * Fold a chunk stream into a completion; `onChunk` sees each chunk first, and `onFirst` is called
 * once the first chunk arrived (from then on the request was answered, at least in part).
 */
export async function collectStream(
  stream: AsyncIterable<OpenAiChatCompletionChunk>,
  onChunk: ((chunk: OpenAiChatCompletionChunk) => void) | undefined,
  onFirst: () => void,
): Promise<OpenAiChatCompletion> {
  let content: string | null = null;
  let refusal: string | null = null;
  let usage: unknown;
  let finish: string | null = null;
  let first = true;
  const calls = new Map<number, CallParts>();
  for await (const chunk of stream) {
    if (first) {
      first = false;
      onFirst();
    }
    onChunk?.(chunk);
    if (chunk.usage !== undefined && chunk.usage !== null) usage = chunk.usage;
    const choice = chunk.choices[0];
    if (choice === undefined) continue;
    finish = choice.finish_reason ?? finish;
    const delta = choice.delta;
    if (typeof delta?.content === 'string') content = (content ?? '') + delta.content;
    if (typeof delta?.refusal === 'string') refusal = (refusal ?? '') + delta.refusal;
    for (const part of delta?.tool_calls ?? []) {
      const call = calls.get(part.index) ?? { id: '', name: '', args: '' };
      if (part.id !== undefined) call.id = part.id;
      if (part.function?.name !== undefined) call.name += part.function.name;
      if (part.function?.arguments !== undefined) call.args += part.function.arguments;
      calls.set(part.index, call);
    }
  }
  if (first) throw new GuardError('invalid_response', 'The streamed chat completion sent no chunk');
  const toolCalls: OpenAiToolCall[] = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.args } }));
  return {
    choices: [
      {
        message: { role: 'assistant', content, refusal, ...(toolCalls.length === 0 ? {} : { tool_calls: toolCalls }) },
        finish_reason: finish,
      },
    ],
    usage,
  };
}
