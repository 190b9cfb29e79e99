/**
 * How a tool result becomes the text of a tool message.
 */

/** Strings as they are; anything else as JSON (`null` for `undefined`, `String()` for what has no JSON). */
export function formatToolResult(result: unknown): string {
  if (typeof result === 'string') return result;
  try {
    return JSON.stringify(result) ?? 'null';
  } catch {
    return String(result);
  }
}
