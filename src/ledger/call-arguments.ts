/**
 * The checks at the entry of a ledgered function: its options must be an object, and its
 * arguments and options must be readable, before anything is claimed.
 */
import { optionsOf, readArgument } from '../invalid-argument.js';
import type { TaskCallOptions } from './types.js';

/**
 * The call options as the ledger reads them: `{}` when omitted, else a shallow copy, read once. `null`, a number or a string, or a getter that throws, is an `InvalidArgumentError`
 * (`invalid_argument`) naming the tool.
 */
export function readCallOptions(tool: string, options: unknown): TaskCallOptions {
  return optionsOf(tool, options as TaskCallOptions, true);
}

/**
 * Run `prepare`, which walks the caller's arguments: a getter or Proxy trap that throws becomes an
 * `InvalidArgumentError` naming the tool's `args`; a `GuardError` (arguments with no JSON form,
 * nested too deep) passes through as it is.
 */
export function readCallArguments<T>(tool: string, prepare: () => T): T {
  return readArgument(tool, 'args', prepare);
}
