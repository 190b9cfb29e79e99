/**
 * Content helpers shared by the format converters.
 */
import { isObj } from './turns.js';
import type { ContentPart, TranscriptMessage, TranscriptToolCall } from './types.js';

/** The text of a content value: the string itself, or its text parts joined by newlines. */
export function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const texts: string[] = [];
  for (const part of content) if (isObj(part) && typeof part.text === 'string') texts.push(part.text);
  return texts.join('\n');
}

/** True when every part is a text part. */
export function onlyText(parts: readonly unknown[]): boolean {
  return parts.every((part) => isObj(part) && part.type === 'text' && typeof part.text === 'string');
}

/** Tool call arguments as the JSON string OpenAI expects. */
export function argumentsJson(input: unknown): string {
  return typeof input === 'string' ? input : (JSON.stringify(input ?? {}) ?? '{}');
}

/** Tool call arguments as a value; an unparseable string is kept as the string. */
export function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A list of parts: the content array, or a string as one text part (none when empty). */
export function partsOf(content: unknown): ContentPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  return Array.isArray(content) ? content.filter(isObj).map((part) => part as ContentPart) : [];
}

/**
 * A canonical assistant message from a format's content: the parts `readCall` reads become
 * `tool_calls` (arguments as JSON text), the others stay content, as one text when they are only
 * text (`null` when that is empty and there are calls).
 */
export function assistantFrom(
  content: unknown,
  readCall: (part: ContentPart) => { readonly id: string; readonly name: string; readonly input: unknown } | undefined,
): TranscriptMessage {
  if (typeof content === 'string') return { role: 'assistant', content };
  const calls: TranscriptToolCall[] = [];
  const other: ContentPart[] = [];
  for (const part of partsOf(content)) {
    const call = readCall(part);
    if (call === undefined) other.push(part);
    else
      calls.push({
        id: call.id,
        type: 'function',
        function: { name: call.name, arguments: argumentsJson(call.input) },
      });
  }
  const text = onlyText(other) ? textOf(other) : null;
  const body = text === null ? other : text === '' && calls.length > 0 ? null : text;
  return calls.length > 0
    ? { role: 'assistant', content: body, tool_calls: calls }
    : { role: 'assistant', content: body ?? '' };
}
