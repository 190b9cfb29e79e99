/**
 * The error of a public function called with an argument it cannot use, and the checks that raise
 * it, so `null`, a number, a string or an object whose getters throw is refused with a stable code
 * rather than a `TypeError` from somewhere inside.
 */
import { GuardError, InvalidArgumentError, kindOf } from './core/guard-error.js';

export { InvalidArgumentError, kindOf };

function isObject(value: unknown): value is object {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `value` when it is an array; otherwise throws {@link InvalidArgumentError}. */
export function arrayArgument<T>(fn: string, argument: string, value: readonly T[]): readonly T[] {
  if (!Array.isArray(value)) throw new InvalidArgumentError(fn, argument, `must be an array, got ${kindOf(value)}`);
  return value;
}

/** `value` when it is a non-array object; otherwise throws {@link InvalidArgumentError}. */
export function objectArgument<T extends object>(fn: string, argument: string, value: T): T {
  if (!isObject(value)) throw new InvalidArgumentError(fn, argument, `must be an object, got ${kindOf(value)}`);
  return value;
}

/**
 * The options object of a call: `{}` when omitted, else a copy of the listed keys, read once here
 * so a getter that throws is refused as {@link InvalidArgumentError} (and the caller's object is
 * never read again).
 */
export function readOptions<T extends object, K extends keyof T & string>(
  fn: string,
  value: T | undefined,
  keys: readonly K[],
  argument = 'options',
): Pick<T, K> {
  if (value === undefined) return {} as Pick<T, K>;
  objectArgument(fn, argument, value);
  const copy: Partial<Pick<T, K>> = {};
  for (const key of keys) {
    let field: T[K];
    try {
      field = value[key];
    } catch (cause) {
      throw new InvalidArgumentError(fn, `${argument}.${key}`, 'cannot be read', { cause });
    }
    if (field !== undefined) copy[key] = field;
  }
  return copy as Pick<T, K>;
}

/**
 * Run `read`, which walks a caller's value; anything but a {@link GuardError} it throws (a getter
 * or Proxy trap that throws, a value nested past the call stack) becomes an
 * {@link InvalidArgumentError} naming `argument`, with the original as `cause`.
 */
export function readArgument<T>(fn: string, argument: string, read: () => T): T {
  try {
    return read();
  } catch (cause) {
    return unreadableArgument(fn, argument, cause);
  }
}

/**
 * A shallow copy of a factory's options object, taken once at the entry so a getter or Proxy trap
 * that throws is refused as {@link InvalidArgumentError}, as are `null`, numbers and strings.
 * `undefined` is refused too unless `optional` (then it is `{}`).
 */
export function optionsOf<T extends object>(fn: string, value: T, optional = false, argument = 'options'): T {
  if (value === undefined) {
    if (optional) return {} as T;
    throw new InvalidArgumentError(fn, argument, 'is required');
  }
  objectArgument(fn, argument, value);
  const keys = readArgument(fn, argument, () => Object.keys(value));
  const copy: Record<string, unknown> = {};
  for (const key of keys)
    copy[key] = readArgument(fn, `${argument}.${key}`, () => (value as Record<string, unknown>)[key]);
  return copy as T;
}

/** `value` when it is a string; otherwise throws {@link InvalidArgumentError}. */
export function stringArgument(fn: string, argument: string, value: string): string {
  if (typeof value !== 'string') throw new InvalidArgumentError(fn, argument, `must be a string, got ${kindOf(value)}`);
  return value;
}

/**
 * Throws {@link InvalidArgumentError} unless `value` is a non-array object whose listed fields can
 * be read (a getter or Proxy trap that throws is refused here, not deep inside). Allocates nothing
 * on the way through, so hot paths may call it.
 */
export function recordArgument(fn: string, argument: string, value: unknown, fields: readonly string[] = []): void {
  if (!isObject(value)) throw new InvalidArgumentError(fn, argument, `must be an object, got ${kindOf(value)}`);
  let field = '';
  try {
    for (field of fields) (value as Record<string, unknown>)[field];
  } catch (cause) {
    throw new InvalidArgumentError(fn, `${argument}.${field}`, 'cannot be read', { cause });
  }
}

/**
 * What a public function throws when reading its argument threw: a {@link GuardError} as it is,
 * anything else (a getter or Proxy trap that throws, a value nested past the call stack) as an
 * {@link InvalidArgumentError} naming `argument`, with the original as `cause`.
 */
export function unreadableArgument(fn: string, argument: string, cause: unknown): never {
  if (cause instanceof GuardError) throw cause;
  const detail = cause instanceof Error ? `: ${cause.message.slice(0, 200)}` : '';
  throw new InvalidArgumentError(fn, argument, `cannot be read${detail}`, { cause });
}

/**
 * Throws {@link InvalidArgumentError} unless `value` is an options object whose every own field
 * can be read (`undefined` passes when `optional`). Checks without copying, for factories that
 * then read the caller's object as they did.
 */
export function checkOptions(fn: string, value: unknown, optional = true, argument = 'options'): void {
  if (value === undefined) {
    if (optional) return;
    throw new InvalidArgumentError(fn, argument, 'is required');
  }
  if (!isObject(value)) throw new InvalidArgumentError(fn, argument, `must be an object, got ${kindOf(value)}`);
  let key = '';
  try {
    for (key of Object.keys(value)) (value as Record<string, unknown>)[key];
  } catch (cause) {
    throw new InvalidArgumentError(fn, key === '' ? argument : `${argument}.${key}`, 'cannot be read', { cause });
  }
}

/**
 * {@link checkOptions} for a storage driver's `connection` and `settings`. A connection that is not
 * an object is left to the driver: its own `invalid_option` names what to pass.
 */
export function checkDriverArguments(fn: string, connection: unknown, settings: unknown): void {
  if (typeof connection === 'object' && connection !== null) checkOptions(fn, connection, true, 'connection');
  checkOptions(fn, settings, true, 'settings');
}

/**
 * {@link checkOptions} for each object argument of `fn`, by name and in order; each is required
 * but those named in `optional` (by default `options`).
 */
export function checkArguments(
  fn: string,
  args: Readonly<Record<string, unknown>>,
  optional: readonly string[] = ['options'],
): void {
  for (const name of Object.keys(args)) checkOptions(fn, args[name], optional.includes(name), name);
}
