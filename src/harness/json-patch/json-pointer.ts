/**
 * RFC 6901 JSON Pointers: parse, format, resolve.
 */

import type { JsonValue } from '../../core/json.js';
import { arrayArgument, InvalidArgumentError, kindOf, stringArgument } from '../../invalid-argument.js';
import { JsonPatchError } from './json-patch-error.js';

/** A pointer that failed to parse: the reason, for the caller to wrap with its own context. */
export class PointerSyntaxError {
  readonly reason: string;

  constructor(reason: string) {
    this.reason = reason;
  }
}

function unescapeToken(token: string, pointer: string): string {
  let out = '';
  let start = 0;
  for (let i = token.indexOf('~'); i !== -1; i = token.indexOf('~', start)) {
    const next = token.charCodeAt(i + 1);
    // Only `~0` and `~1` exist; `~0` decodes before `~1` is read, so `~01` is `~1`, not `/`.
    if (next !== 0x30 && next !== 0x31) {
      throw new PointerSyntaxError(
        `pointer \`${pointer}\` has \`~\` not followed by \`0\` or \`1\` (write \`~0\` for \`~\`, \`~1\` for \`/\`)`,
      );
    }
    out += token.slice(start, i) + (next === 0x30 ? '~' : '/');
    start = i + 2;
  }
  return out + token.slice(start);
}

/** The reference tokens of `pointer`, unescaped; throws {@link PointerSyntaxError}. */
export function pointerTokens(pointer: string): string[] {
  if (pointer === '') return [];
  if (pointer.charCodeAt(0) !== 0x2f) {
    throw new PointerSyntaxError(`pointer \`${pointer.slice(0, 200)}\` must be empty or start with \`/\``);
  }
  const tokens = pointer.split('/');
  tokens.shift();
  if (pointer.includes('~')) {
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i] as string;
      if (token.includes('~')) tokens[i] = unescapeToken(token, pointer);
    }
  }
  return tokens;
}

/**
 * Parse an RFC 6901 JSON Pointer into its unescaped reference tokens.
 *
 * Throws a {@link JsonPatchError} with code `invalid_pointer` for a pointer that is not empty and
 * does not start with `/`, or that has a `~` not followed by `0` or `1`.
 *
 * @example
 * parseJsonPointer('/a~1b/~0c/0'); // ['a/b', '~c', '0']
 */
export function parseJsonPointer(pointer: string): string[] {
  stringArgument('parseJsonPointer', 'pointer', pointer);
  try {
    return pointerTokens(pointer);
  } catch (error) {
    if (!(error instanceof PointerSyntaxError)) throw error;
    throw new JsonPatchError({ code: 'invalid_pointer', reason: error.reason });
  }
}

/**
 * Format reference tokens as an RFC 6901 JSON Pointer, escaping `~` and `/`.
 *
 * @example
 * formatJsonPointer(['a/b', '~c', 0]); // '/a~1b/~0c/0'
 */
export function formatJsonPointer(tokens: readonly (string | number)[]): string {
  arrayArgument('formatJsonPointer', 'tokens', tokens);
  let out = '';
  for (const token of tokens) {
    const text = String(token);
    out += `/${text.includes('~') || text.includes('/') ? text.replaceAll('~', '~0').replaceAll('/', '~1') : text}`;
  }
  return out;
}

/**
 * The array index a token names, or `null` when it is not one (`-`, `01`, `1e0`, `foo`).
 * RFC 6901 indexes are `0` or a digit string without a leading zero; one too long to be exact
 * comes back as `MAX_SAFE_INTEGER`, past the end of any array.
 */
export function arrayIndexOf(token: string): number | null {
  const length = token.length;
  if (length === 0) return null;
  if (token.charCodeAt(0) === 0x30) return length === 1 ? 0 : null;
  let index = 0;
  for (let i = 0; i < length; i++) {
    const code = token.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return null;
    index = index * 10 + (code - 0x30);
  }
  return length > 15 ? Number.MAX_SAFE_INTEGER : index;
}

/**
 * The value `pointer` (a pointer string or its parsed tokens) addresses in `document`, or
 * `undefined` when nothing is there. Only own members are followed: `/constructor` on `{}` is
 * `undefined`, never `Object`.
 *
 * Throws a {@link JsonPatchError} (`invalid_pointer`) for a malformed pointer string.
 *
 * @example
 * getByPointer({ a: [{ b: 1 }] }, '/a/0/b'); // 1
 */
export function getByPointer(document: JsonValue, pointer: string | readonly string[]): JsonValue | undefined {
  if (typeof pointer !== 'string' && !Array.isArray(pointer))
    throw new InvalidArgumentError(
      'getByPointer',
      'pointer',
      `must be a pointer string or an array of tokens, got ${kindOf(pointer)}`,
    );
  const tokens = typeof pointer === 'string' ? parseJsonPointer(pointer) : pointer;
  let node: JsonValue = document;
  for (const token of tokens) {
    if (typeof node !== 'object' || node === null) return undefined;
    if (Array.isArray(node)) {
      const index = arrayIndexOf(token);
      if (index === null || index >= node.length) return undefined;
      node = node[index] as JsonValue;
    } else {
      if (!Object.hasOwn(node, token)) return undefined;
      node = (node as { readonly [key: string]: JsonValue })[token] as JsonValue;
    }
  }
  return node;
}
