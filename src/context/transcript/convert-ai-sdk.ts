/**
 * Converters between AI SDK `ModelMessage` and the canonical (OpenAI Chat Completions) model.
 */

import { readArgument } from '../../invalid-argument.js';
import { assistantFrom, parseArguments, partsOf, textOf } from './content.js';
import { messagesArgument } from './detect-format.js';
import { isObj } from './turns.js';
import type {
  AiSdkMessage,
  AiSdkToolCallPart,
  AiSdkToolResultPart,
  ChatToolMessage,
  ContentPart,
  TranscriptMessage,
} from './types.js';

function outputText(output: unknown): string {
  if (!isObj(output)) return '';
  switch (output.type) {
    case 'text':
    case 'error-text':
      return typeof output.value === 'string' ? output.value : '';
    case 'json':
    case 'error-json':
      return JSON.stringify(output.value ?? null);
    case 'execution-denied':
      return typeof output.reason === 'string' ? `Tool execution denied: ${output.reason}` : 'Tool execution denied';
    case 'content':
      return Array.isArray(output.value)
        ? output.value.map((part) => textOf([part]) || JSON.stringify(part)).join('\n')
        : '';
    default:
      return JSON.stringify(output);
  }
}

function userPart(part: ContentPart): ContentPart {
  if (part.type === 'image' && (typeof part.image === 'string' || part.image instanceof URL)) {
    return { type: 'image_url', image_url: { url: String(part.image) } };
  }
  return part.type === 'text' ? { type: 'text', text: String(part.text) } : part;
}

/** A `tool-call` part the provider did not execute itself. */
function toolCallOf(part: ContentPart): { id: string; name: string; input: unknown } | undefined {
  if (part.type !== 'tool-call' || part.providerExecuted === true) return undefined;
  const call = part as unknown as AiSdkToolCallPart;
  return { id: call.toolCallId, name: call.toolName, input: call.input };
}

/**
 * Convert AI SDK `ModelMessage`s to the canonical model.
 *
 * Tool calls become `tool_calls` (arguments as JSON text); each `tool-result` part becomes one
 * `tool` message whose content is the output's text (JSON outputs serialised). Images given by URL
 * become `image_url` parts; other parts (files, reasoning) are carried unchanged. Provider-executed
 * calls stay in the content; approval parts, `providerOptions` and result `toolName`s are dropped.
 *
 * @example
 * fromAiSdkMessages([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type: 'json', value: { ok: true } } }] }]);
 * // [{ role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' }]
 */
export function fromAiSdkMessages(messages: readonly AiSdkMessage[]): TranscriptMessage[] {
  const list = messagesArgument('fromAiSdkMessages', messages);
  return readArgument('fromAiSdkMessages', 'messages', () => {
    const chat: TranscriptMessage[] = [];
    for (const message of list) {
      switch (message.role) {
        case 'system':
          chat.push({ role: 'system', content: message.content });
          break;
        case 'user':
          chat.push({
            role: 'user',
            content: typeof message.content === 'string' ? message.content : partsOf(message.content).map(userPart),
          });
          break;
        case 'assistant':
          chat.push(assistantFrom(message.content, toolCallOf));
          break;
        case 'tool':
          for (const part of partsOf(message.content)) {
            if (part.type !== 'tool-result') continue;
            const result = part as unknown as AiSdkToolResultPart;
            chat.push({ role: 'tool', tool_call_id: result.toolCallId, content: outputText(result.output) });
          }
          break;
      }
    }
    return chat;
  });
}

function toPart(part: ContentPart): ContentPart {
  const url = isObj(part.image_url) ? part.image_url.url : undefined;
  return part.type === 'image_url' && typeof url === 'string' ? { type: 'image', image: url } : part;
}

function toAssistant(message: Extract<TranscriptMessage, { role: 'assistant' }>): AiSdkMessage {
  const calls = message.tool_calls ?? [];
  if (calls.length === 0 && (typeof message.content === 'string' || message.content === null)) {
    return { role: 'assistant', content: message.content ?? '' };
  }
  const content: (ContentPart | AiSdkToolCallPart)[] = partsOf(message.content).map(toPart);
  for (const call of calls) {
    content.push({
      type: 'tool-call',
      toolCallId: call.id,
      toolName: call.function.name,
      input: parseArguments(call.function.arguments),
    });
  }
  return { role: 'assistant', content };
}

/**
 * Convert canonical messages to AI SDK `ModelMessage`s: `tool_calls` become `tool-call` parts
 * (arguments parsed), consecutive `tool` messages become one `tool` message of `tool-result` parts
 * with `text` outputs named after their call, and `developer` becomes `system`.
 *
 * @example
 * toAiSdkMessages([{ role: 'user', content: 'hi' }]); // [{ role: 'user', content: 'hi' }]
 */
export function toAiSdkMessages(messages: readonly TranscriptMessage[]): AiSdkMessage[] {
  const list = messagesArgument('toAiSdkMessages', messages);
  return readArgument('toAiSdkMessages', 'messages', () => {
    const names = new Map<string, string>();
    const out: AiSdkMessage[] = [];
    let results: AiSdkToolResultPart[] | null = null;
    for (const message of list) {
      if (message.role !== 'tool') results = null;
      switch (message.role) {
        case 'system':
        case 'developer':
          out.push({ role: 'system', content: textOf(message.content) });
          break;
        case 'user':
          out.push({
            role: 'user',
            content: typeof message.content === 'string' ? message.content : message.content.map(toPart),
          });
          break;
        case 'assistant':
          for (const call of message.tool_calls ?? []) names.set(call.id, call.function.name);
          out.push(toAssistant(message));
          break;
        case 'tool':
          results ??= pushToolMessage(out);
          results.push(toResult(message, names));
          break;
      }
    }
    return out;
  });
}

function pushToolMessage(out: AiSdkMessage[]): AiSdkToolResultPart[] {
  const content: AiSdkToolResultPart[] = [];
  out.push({ role: 'tool', content });
  return content;
}

function toResult(message: ChatToolMessage, names: ReadonlyMap<string, string>): AiSdkToolResultPart {
  const toolName = names.get(message.tool_call_id) ?? 'unknown';
  return {
    type: 'tool-result',
    toolCallId: message.tool_call_id,
    toolName,
    output: { type: 'text', value: textOf(message.content) },
  };
}
