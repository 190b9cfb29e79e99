/**
 * JSON equality, as RFC 6902's `test` operation defines it.
 */

/**
 * Whether two JSON values are equal: same type; numbers by numeric value (`1` and `1.0` are the
 * same JS number); strings by code units; arrays element by element; objects by the same set of
 * own keys with equal values, in any order. A boolean never equals a number, `null` only `null`.
 *
 * Both arguments are expected to be JSON (as `applyJsonPatch` checks before comparing); a cycle in
 * both would recurse without end.
 *
 * @example
 * jsonEquals({ a: 1, b: [true] }, { b: [true], a: 1.0 }); // true
 * jsonEquals(1, true); // false
 */
export function jsonEquals(left: unknown, right: unknown): boolean {
  if (left === right) return true;
  if (typeof left !== 'object' || typeof right !== 'object' || left === null || right === null) return false;
  const leftIsArray = Array.isArray(left);
  if (leftIsArray !== Array.isArray(right)) return false;
  if (leftIsArray) {
    const a = left as readonly unknown[];
    const b = right as readonly unknown[];
    if (a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!jsonEquals(a[i], b[i])) return false;
    return true;
  }
  const a = left as Readonly<Record<string, unknown>>;
  const b = right as Readonly<Record<string, unknown>>;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const key of keys) {
    if (!Object.hasOwn(b, key) || !jsonEquals(a[key], b[key])) return false;
  }
  return true;
}
