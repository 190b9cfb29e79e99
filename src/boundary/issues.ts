/**
 * Validation issues as data: `{ code, path, message }` plus a short `expected` and `actual`, the
 * shape every schema form (field spec, JSON Schema, Standard Schema) is reported in.
 */
import { arrayArgument, unreadableArgument } from '../invalid-argument.js';

/** What went wrong with one value. */
export const IssueCode = {
  missing_required_field: 'missing_required_field',
  type_mismatch: 'type_mismatch',
  pattern_mismatch: 'pattern_mismatch',
  unexpected_field: 'unexpected_field',
  too_short: 'too_short',
  too_long: 'too_long',
  too_few_items: 'too_few_items',
  too_many_items: 'too_many_items',
  not_in_enum: 'not_in_enum',
  out_of_range: 'out_of_range',
  invalid_value: 'invalid_value',
  async_schema: 'async_schema',
} as const;
/** What went wrong with one value. */
export type IssueCode = (typeof IssueCode)[keyof typeof IssueCode];

/** One segment of an issue path: an object key or an array index. */
export type PathSegment = string | number;

/** One validation problem. `path` is empty for the value itself. */
export interface ValidationIssue {
  readonly code: IssueCode;
  readonly path: readonly PathSegment[];
  readonly message: string;
  /** What the schema wanted, in a few words (`integer`, ``a string matching `^c\d+$` ``). */
  readonly expected: string;
  /** What was there, in a few words; never the whole of a large value. */
  readonly actual: string;
}

/** The result of {@link validate}: the value on success, the issues otherwise. */
export type ValidationResult<T> =
  | { readonly ok: true; readonly value: T }
  | { readonly ok: false; readonly issues: readonly ValidationIssue[] };

/**
 * A JSON pointer (RFC 6901) for an issue path: `['items', 0, 'sku']` → `/items/0/sku`, `[]` → `''`.
 *
 * @example
 * toJsonPointer(['a/b', 0]); // '/a~1b/0'
 */
export function toJsonPointer(path: readonly PathSegment[]): string {
  arrayArgument('toJsonPointer', 'path', path);
  let pointer = '';
  for (const segment of path) {
    pointer += `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`;
  }
  return pointer;
}

/** The segments of a JSON pointer; `''` is the root. */
export function fromJsonPointer(pointer: string): string[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
}

/** `a` or `an` before a word: `an integer`, `a string`. */
export function article(word: string): 'a' | 'an' {
  return /^[aeiou]/i.test(word) ? 'an' : 'a';
}

/** How a field is named in messages: `` `/customer_id` `` or `the arguments` for the root. */
export function describeField(pointer: string): string {
  return pointer === '' ? 'the arguments' : `\`${pointer}\``;
}

const PREVIEW_CHARS = 40;

/**
 * A short description of a value for messages: `string "c12"`, `integer 7`, `array of 3 items`.
 * Long strings are cut, containers are counted, never printed.
 *
 * @example
 * describeValue('x'.repeat(5000)); // 'string of 5000 characters starting "xxxxxxxxxxxxxxxxxxxx…"'
 */
export function describeValue(value: unknown): string {
  try {
    switch (typeof value) {
      case 'undefined':
        return 'nothing';
      case 'string':
        return value.length <= PREVIEW_CHARS
          ? `string ${JSON.stringify(value)}`
          : `string of ${value.length} characters starting ${JSON.stringify(`${value.slice(0, 20)}…`)}`;
      case 'number':
        return Number.isInteger(value) ? `integer ${value}` : `number ${value}`;
      case 'boolean':
        return `boolean ${value}`;
      case 'bigint':
        return 'bigint';
      case 'function':
        return 'function';
      case 'symbol':
        return 'symbol';
      default:
        break;
    }
    if (value === null) return 'null';
    if (Array.isArray(value)) return `array of ${value.length} item${value.length === 1 ? '' : 's'}`;
    const proto: unknown = Object.getPrototypeOf(value);
    if (proto !== Object.prototype && proto !== null) {
      const name = (value as { constructor?: { name?: unknown } }).constructor?.name;
      return typeof name === 'string' && name !== '' ? `instance of ${name}` : 'object';
    }
    const keys = Object.keys(value as object).length;
    return `object with ${keys} key${keys === 1 ? '' : 's'}`;
  } catch (cause) {
    return unreadableArgument('describeValue', 'value', cause);
  }
}

/** The value at `path` inside `root`, or `undefined` when the path does not lead anywhere. */
export function valueAt(root: unknown, path: readonly PathSegment[]): unknown {
  let current: unknown = root;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (!Object.hasOwn(current, segment)) return undefined;
    current = (current as Record<PathSegment, unknown>)[segment];
  }
  return current;
}

/** True when the last segment of `path` names a member its parent object does not have. */
export function isMissingMember(root: unknown, path: readonly PathSegment[]): boolean {
  if (path.length === 0) return root === undefined;
  const parent = valueAt(root, path.slice(0, -1));
  if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) return false;
  const last = path[path.length - 1] as PathSegment;
  return !Object.hasOwn(parent, last) || (parent as Record<PathSegment, unknown>)[last] === undefined;
}
