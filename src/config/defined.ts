/**
 * Optional settings passed on without their absent members: under `exactOptionalPropertyTypes` an
 * optional key holds a value or is missing, never `undefined`.
 */

/** `value` without its undefined members, typed with optional keys. */
export function defined<T extends Record<string, unknown>>(value: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>;
  };
}

/** The members of `source` named in `keys` (in that order) that are not undefined. */
export function pickDefined<T extends object, const K extends keyof T>(
  source: T,
  keys: readonly K[],
): { [P in K]?: Exclude<T[P], undefined> } {
  const out: Partial<Record<K, unknown>> = {};
  for (const key of keys) {
    const value = source[key];
    if (value !== undefined) out[key] = value;
  }
  return out as { [P in K]?: Exclude<T[P], undefined> };
}
