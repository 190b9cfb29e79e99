/**
 * Content helpers shared by the format converters.
 */
import { isObj } from './turns.js';
import type { ContentPart } from './types.js';

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
