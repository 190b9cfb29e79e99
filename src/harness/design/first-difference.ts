/**
 * The first place two JSON values differ, as an RFC 6901 pointer.
 */
import { formatJsonPointer, type JsonValue } from '../json-patch/apply-json-patch.js';

type Token = string | number;

function kind(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

function walk(left: unknown, right: unknown, path: Token[]): Token[] | null {
  if (left === right) return null;
  const leftKind = kind(left);
  if (leftKind !== kind(right) || (leftKind !== 'object' && leftKind !== 'array')) return path;
  if (leftKind === 'array') {
    const a = left as readonly unknown[];
    const b = right as readonly unknown[];
    const shared = Math.min(a.length, b.length);
    for (let i = 0; i < shared; i++) {
      const found = walk(a[i], b[i], [...path, i]);
      if (found !== null) return found;
    }
    return a.length === b.length ? null : [...path, shared];
  }
  const a = left as Readonly<Record<string, unknown>>;
  const b = right as Readonly<Record<string, unknown>>;
  // Canonical (RFC 8785) member order, so the reported pointer does not depend on insertion order.
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort();
  for (const key of keys) {
    if (!Object.hasOwn(a, key) || !Object.hasOwn(b, key)) return [...path, key];
    const found = walk(a[key], b[key], [...path, key]);
    if (found !== null) return found;
  }
  return null;
}

/**
 * The JSON pointer of the first location where `left` and `right` differ (members in canonical
 * order, array items by index), or `null` when they are equal JSON.
 *
 * @example
 * firstDifference({ a: [1, 2] }, { a: [1, 3] }); // '/a/1'
 */
export function firstDifference(left: JsonValue, right: JsonValue): string | null {
  const found = walk(left, right, []);
  return found === null ? null : formatJsonPointer(found);
}
