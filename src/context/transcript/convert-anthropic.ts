/**
 * Converters between Anthropic Messages and the canonical (OpenAI Chat Completions) model.
 */

import { readArgument, readOptions } from '../../invalid-argument.js';
import { assistantFrom, onlyText, parseArguments, partsOf, textOf } from './content.js';
import { messagesArgument } from './detect-format.js';
import { isObj } from './turns.js';
import type {
  AnthropicMessage,
  AnthropicToolResultBlock,
  AnthropicToolUseBlock,
  ContentPart,
  TranscriptMessage,
} from './types.js';

type Block = AnthropicToolUseBlock | AnthropicToolResultBlock | ContentPart;

function toolUseOf(block: ContentPart): AnthropicToolUseBlock | undefined {
  return block.type === 'tool_use' ? (block as unknown as AnthropicToolUseBlock) : undefined;
}

function fromUser(content: AnthropicMessage['content'], chat: TranscriptMessage[]): void {
  if (typeof content === 'string') {
    chat.push({ role: 'user', content });
    return;
  }
  const rest: ContentPart[] = [];
  for (const block of partsOf(content)) {
    if (block.type !== 'tool_result') {
      rest.push(block);
      continue;
    }
    const result = block as unknown as AnthropicToolResultBlock;
    chat.push({ role: 'tool', tool_call_id: result.tool_use_id, content: textOf(result.content ?? '') });
  }
  if (rest.length > 0) chat.push({ role: 'user', content: onlyText(rest) ? textOf(rest) : rest });
}

/**
 * Convert Anthropic messages to the canonical model. `tool_use` blocks become `tool_calls`; each
 * `tool_result` block becomes a `tool` message (before the rest of its user message); `system`
 * becomes a leading system message. Other blocks (images, thinking) are carried unchanged;
 * `is_error` and `cache_control` are dropped.
 *
 * @example
 * fromAnthropicMessages([{ role: 'user', content: 'hi' }], { system: 'Be brief' });
 * // [{ role: 'system', content: 'Be brief' }, { role: 'user', content: 'hi' }]
 */
export function fromAnthropicMessages(
  messages: readonly AnthropicMessage[],
  options: { readonly system?: string } = {},
): TranscriptMessage[] {
  const list = messagesArgument('fromAnthropicMessages', messages);
  const { system } = readOptions('fromAnthropicMessages', options, ['system']);
  return readArgument('fromAnthropicMessages', 'messages', () => {
    const chat: TranscriptMessage[] = system === undefined ? [] : [{ role: 'system', content: system }];
    for (const message of list) {
      if (message.role === 'assistant') chat.push(assistantFrom(message.content, toolUseOf));
      else fromUser(message.content, chat);
    }
    return chat;
  });
}

function toBlock(part: ContentPart): Block {
  const url = isObj(part.image_url) ? part.image_url.url : undefined;
  if (part.type !== 'image_url' || typeof url !== 'string') return part;
  const data = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return data === null
    ? { type: 'image', source: { type: 'url', url } }
    : { type: 'image', source: { type: 'base64', media_type: data[1], data: data[2] } };
}

function toAssistant(message: Extract<TranscriptMessage, { role: 'assistant' }>): AnthropicMessage {
  const calls = message.tool_calls ?? [];
  if (calls.length === 0 && typeof message.content === 'string') return { role: 'assistant', content: message.content };
  const content: Block[] = partsOf(message.content).map(toBlock);
  for (const call of calls) {
    content.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  }
  return { role: 'assistant', content };
}

/**
 * Convert canonical messages to Anthropic's request shape: system messages are joined into
 * `system`; consecutive `tool` messages become `tool_result` blocks at the head of one user message,
 * followed by the content of the user message after them, if any.
 *
 * @example
 * const { system, messages } = toAnthropicMessages(chat);
 * await anthropic.messages.create({ model, max_tokens: 1024, system, messages });
 */
export function toAnthropicMessages(messages: readonly TranscriptMessage[]): {
  system: string | undefined;
  messages: AnthropicMessage[];
} {
  const list = messagesArgument('toAnthropicMessages', messages);
  return readArgument('toAnthropicMessages', 'messages', () => {
    const system: string[] = [];
    const out: AnthropicMessage[] = [];
    let results: Block[] | null = null;
    for (const message of list) {
      switch (message.role) {
        case 'system':
        case 'developer':
          system.push(textOf(message.content));
          break;
        case 'assistant':
          results = null;
          out.push(toAssistant(message));
          break;
        case 'tool':
          if (results === null) {
            results = [];
            out.push({ role: 'user', content: results });
          }
          results.push({ type: 'tool_result', tool_use_id: message.tool_call_id, content: textOf(message.content) });
          break;
        case 'user':
          if (results === null)
            out.push({
              role: 'user',
              content: typeof message.content === 'string' ? message.content : message.content.map(toBlock),
            });
          else results.push(...partsOf(message.content).map(toBlock));
          results = null;
          break;
      }
    }
    return { system: system.length === 0 ? undefined : system.join('\n\n'), messages: out };
  });
}
