/**
 * The checks of the common option shapes (a positive integer, a duration in ms, a non-empty string,
 * one of a few values), shared by every factory and driver so a bad option is refused the same way
 * everywhere: an {@link InvalidOptionError} naming the option's path.
 */
import { codeList } from './core/code-list.js';
import { InvalidOptionError } from './errors.js';

/**
 * The longest duration an option or a config accepts: 2147483647 ms (about 24.8 days), the longest
 * a Node.js timer waits. Leases, polls and reconcile timeouts run on timers, and a longer delay fires
 * at once.
 */
export const MAX_DURATION_MS = 2_147_483_647;

/** `value` when it is an integer of at least `min` (1 unless told); otherwise throws. */
export function integerOption(option: string, value: unknown, min = 1): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < min) {
    const what = min === 1 ? 'a positive integer' : `an integer of at least ${min}`;
    throw new InvalidOptionError(option, `\`${option}\` must be ${what}, got \`${String(value)}\``);
  }
  return value;
}

/** Which milliseconds {@link durationOption} accepts below the maximum. */
export type DurationFloor = 'positive' | 'non-negative' | 'any';

/**
 * `value` when it is a finite number of milliseconds of at most {@link MAX_DURATION_MS} and above
 * `floor`: `positive` (the default), `non-negative`, or `any` (a lease where zero or less means
 * unbounded); otherwise throws.
 */
export function durationOption(option: string, value: unknown, floor: DurationFloor = 'positive'): number {
  const low =
    floor === 'positive' ? 'a positive number' : floor === 'non-negative' ? 'a non-negative number' : 'a number';
  if (
    typeof value !== 'number' ||
    !Number.isFinite(value) ||
    (floor === 'positive' && value <= 0) ||
    (floor === 'non-negative' && value < 0)
  ) {
    throw new InvalidOptionError(option, `\`${option}\` must be ${low} of milliseconds, got \`${String(value)}\``);
  }
  if (value > MAX_DURATION_MS) {
    throw new InvalidOptionError(
      option,
      `\`${option}\` must be at most ${MAX_DURATION_MS} ms (about 24.8 days, the longest a Node.js timer waits), got \`${value}\``,
    );
  }
  return value;
}

/** `value` when it is a non-empty string (and, when `refuseBlank`, not only white space); otherwise throws. */
export function textOption(option: string, value: unknown, refuseBlank = false): string {
  if (typeof value !== 'string' || (refuseBlank ? value.trim() : value) === '') {
    throw new InvalidOptionError(option, `\`${option}\` must be a non-empty string, got \`${String(value)}\``);
  }
  return value;
}

/** `value` when it is one of `values`; otherwise throws naming them. */
export function enumOption<const T extends string | number | boolean>(
  option: string,
  value: unknown,
  values: readonly T[],
): T {
  if (!values.includes(value as T)) {
    throw new InvalidOptionError(option, `\`${option}\` must be one of ${codeList(values)}, got \`${String(value)}\``);
  }
  return value as T;
}
