/**
 * RFC 8785 (JSON Canonicalization Scheme) serialisation.
 */
import { CanonicalJsonError } from './guard-error.js';

function isPlainObject(value: object): boolean {
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function childPath(path: string, key: string | number): string {
  return typeof key === 'number' ? `${path}[${key}]` : `${path}.${key}`;
}

/**
 * The deepest nesting serialised: about 2.5 times less than what exhausts Node's default stack, so
 * a value nested 100k levels deep is refused by name instead of a `RangeError` from the engine.
 */
export const MAX_JSON_DEPTH = 2_000;

/** Why a value that is neither an object nor null has no JSON form. */
function scalarProblem(value: unknown): string {
  if (typeof value === 'number') return `\`${value}\` is not a finite number`;
  return `a ${typeof value} has no JSON form`;
}

function serialize(value: unknown, path: string, stack: Set<object>): string | undefined {
  if (typeof value !== 'object' || value === null) {
    try {
      return serializeFast(value, 0);
    } catch {
      throw new CanonicalJsonError(path, scalarProblem(value));
    }
  }
  const object = value as object;
  if (stack.has(object)) throw new CanonicalJsonError(path, 'the value contains a cycle');
  if (stack.size >= MAX_JSON_DEPTH) {
    throw new CanonicalJsonError(path.slice(0, 200), `the value nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  stack.add(object);
  try {
    if (Array.isArray(object)) {
      const items = object.map((item: unknown, index) => serialize(item, childPath(path, index), stack) ?? 'null');
      return `[${items.join(',')}]`;
    }
    if (!isPlainObject(object)) {
      const name = (object as { constructor?: { name?: string } }).constructor?.name ?? 'unknown';
      throw new CanonicalJsonError(path, `an instance of \`${name}\` is not plain JSON`);
    }
    // Default string sort compares UTF-16 code units, which is what RFC 8785 prescribes.
    const keys = Object.keys(object).sort();
    const members: string[] = [];
    for (const key of keys) {
      const member = serialize((object as Record<string, unknown>)[key], childPath(path, key), stack);
      if (member !== undefined) members.push(`${JSON.stringify(key)}:${member}`);
    }
    return `{${members.join(',')}}`;
  } finally {
    stack.delete(object);
  }
}

/** Thrown by the fast path; the slow path then finds the offending value's path. */
const NOT_JSON: unique symbol = Symbol('not JSON');

// The fast path builds no path strings: on the happy path they are pure cost. Anything it
// refuses is serialised again by `serialize`, which names the offending path.
// Quoted member names, reused: tool arguments repeat the same few names on every call.
const quotedKeys = new Map<string, string>();
const QUOTED_KEYS_MAX = 4096;
const QUOTED_KEY_MAX_LENGTH = 64;

function quoteKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = JSON.stringify(key);
    if (key.length <= QUOTED_KEY_MAX_LENGTH && quotedKeys.size < QUOTED_KEYS_MAX) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** The member names of `record` in UTF-16 code-unit order (the order RFC 8785 prescribes). */
function sortedKeys(record: object): string[] {
  const keys = Object.keys(record);
  // Objects are often written in order already; checking is cheaper than sorting.
  for (let i = 1; i < keys.length; i++) {
    if ((keys[i - 1] as string) > (keys[i] as string)) return keys.sort();
  }
  return keys;
}

function serializeFast(value: unknown, depth: number): string | undefined {
  switch (typeof value) {
    case 'string':
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) throw NOT_JSON;
      // Number-to-String of a finite number is its JSON (and RFC 8785) form; -0 gives "0".
      return `${value}`;
    case 'undefined':
      return undefined;
    case 'object':
      break;
    default:
      throw NOT_JSON;
  }
  if (value === null) return 'null';
  // Deep nesting is where cycles live: leave those to the slow path's cycle check.
  if (depth > 64) throw NOT_JSON;
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out += ',';
      out += serializeFast(value[i], depth + 1) ?? 'null';
    }
    return `${out}]`;
  }
  const proto: unknown = Object.getPrototypeOf(value);
  if (proto !== Object.prototype && proto !== null) throw NOT_JSON;
  const record = value as Record<string, unknown>;
  const keys = sortedKeys(record);
  let out = '{';
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const member = serializeFast(record[key], depth + 1);
    if (member === undefined) continue;
    out += first ? `${quoteKey(key)}:${member}` : `,${quoteKey(key)}:${member}`;
    first = false;
  }
  return `${out}}`;
}

/** A getter or Proxy trap that threw while the value was walked: the value has no JSON form. */
function unreadable(error: unknown): unknown {
  if (error instanceof CanonicalJsonError) return error;
  const detail = error instanceof Error ? `: ${error.message.slice(0, 200)}` : '';
  return new CanonicalJsonError('$', `the value cannot be read (a getter or Proxy trap threw${detail})`, {
    cause: error,
  });
}

/**
 * Serialise a JSON value to its RFC 8785 canonical form.
 *
 * Object members are sorted by UTF-16 code units, numbers use the ECMAScript shortest form, and
 * members whose value is `undefined` are left out (as `JSON.stringify` does). Anything that has no
 * JSON form — NaN, Infinity, a bigint, a function, a cycle, a class instance, nesting deeper than
 * {@link MAX_JSON_DEPTH}, a getter that throws — throws {@link CanonicalJsonError} naming its path.
 *
 * @example
 * canonicalJson({ b: 1, a: [true, null] }); // '{"a":[true,null],"b":1}'
 */
export function canonicalJson(value: unknown): string {
  let text: string | undefined;
  try {
    text = serializeFast(value, 0);
  } catch (error) {
    if (error !== NOT_JSON) throw unreadable(error);
    try {
      text = serialize(value, '$', new Set());
    } catch (inner) {
      throw unreadable(inner);
    }
  }
  if (text === undefined) throw new CanonicalJsonError('$', 'the value is undefined');
  return text;
}
