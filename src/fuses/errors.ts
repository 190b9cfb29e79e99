/**
 * Errors of the fuses. Checks never throw; these are raised only by construction (bad options) and
 * by {@link assertAllowed}, the throwing twin of a verdict.
 */
import { GuardError, InvalidOptionError } from '../errors.js';
import { recordArgument } from '../invalid-argument.js';
import type { FuseAllowance, FuseRefusal, FuseVerdict } from './verdict.js';

/**
 * A fuse was constructed with options that cannot work: now {@link InvalidOptionError} itself
 * (code `invalid_option`, the option's path in `option`). The name stays so `instanceof
 * FuseConfigError` goes on working.
 *
 * @deprecated Catch {@link InvalidOptionError}.
 */
export const FuseConfigError: typeof InvalidOptionError = InvalidOptionError;
/** @deprecated Use {@link InvalidOptionError}. */
export type FuseConfigError = InvalidOptionError;

/** A fuse refused a call; `verdict` holds the refusal and `llmMessage` its note for the model. */
export class FuseTrippedError extends GuardError {
  readonly verdict: FuseRefusal;

  constructor(verdict: FuseRefusal) {
    super(`fuse_tripped`, `Fuse \`${verdict.fuse}\` refused (\`${verdict.code}\`): ${verdict.reason}`, {
      llmMessage: verdict.note,
    });
    this.verdict = verdict;
  }
}

/**
 * Throw {@link FuseTrippedError} when `verdict` is a refusal.
 *
 * @example
 * assertAllowed(run.checkToolCall({ name: 'lookup_order', args: { id: 7 } }));
 */
export function assertAllowed(verdict: FuseVerdict): asserts verdict is FuseAllowance {
  recordArgument('assertAllowed', 'verdict', verdict, ['allowed']);
  if (!verdict.allowed) throw new FuseTrippedError(verdict);
}

/** A log handed to `replay` holds an event the box cannot read. */
export class FuseLogError extends GuardError {
  /** Position of the offending event in the log. */
  readonly index: number;

  constructor(index: number, reason: string) {
    super('fuse_log_invalid', `Event ${index} of the fuse log cannot be replayed: ${reason}`);
    this.index = index;
  }
}
