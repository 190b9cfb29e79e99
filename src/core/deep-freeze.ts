/**
 * Deep freezing of plain data: private copies handed to code that must not change them.
 */

/**
 * Freeze `value` and everything reachable from it; returns it. An object already frozen is taken
 * to be frozen deeply (everything here freezes that way), so shared subtrees are walked once.
 */
export function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
