/**
 * Fuse verdicts: every fuse answers with a plain, JSON-serialisable verdict and never throws.
 */
import type { JsonValue } from '../core/json.js';
import { type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';

const FUSE_NAMES = ['permission', 'loop', 'budget', 'judge', 'canary', 'box'] as const;
/** Names of the built-in fuses; a verdict's `fuse` may also carry a custom fuse's name. */
export const FuseName: Vocabulary<typeof FUSE_NAMES> = vocabulary(FUSE_NAMES);
/** Names of the built-in fuses. */
export type FuseName = ValueOf<typeof FuseName>;

const FUSE_CODES = [
  'unknown_tool',
  'permission_denied',
  'loop_repeat',
  'loop_cycle',
  'budget_usd_exceeded',
  'budget_tokens_exceeded',
  'budget_price_missing',
  'budget_invalid_request',
  'budget_invalid_usage',
  'budget_usage_missing',
  'judge_hard_check_failed',
  'judge_below_threshold',
  'judge_invalid_score',
  'invalid_call',
  'run_stopped',
  'fuse_internal_error',
] as const;
/** Stable codes of refusals; adapters and dashboards switch on these. */
export const FuseCode: Vocabulary<typeof FUSE_CODES> = vocabulary(FUSE_CODES);
/** Stable codes of refusals. */
export type FuseCode = ValueOf<typeof FuseCode>;

/** JSON facts a fuse gives for its decision. */
export type FuseEvidence = { readonly [key: string]: JsonValue };

/** The call may go ahead. */
export interface FuseAllowance {
  readonly allowed: true;
}

/** The call must not go ahead. */
export interface FuseRefusal {
  readonly allowed: false;
  /** Name of the fuse that refused. */
  readonly fuse: string;
  /** Stable code, usually one of {@link FuseCode}. */
  readonly code: string;
  /** What happened, for the operator. */
  readonly reason: string;
  /** What happened, for the model: names what was refused and says it did NOT happen. */
  readonly note: string;
  /** The run must stop: the box refuses every further call until `reset()`. */
  readonly terminal: boolean;
  readonly evidence: FuseEvidence;
}

/** `{ allowed: true }` or a {@link FuseRefusal}. */
export type FuseVerdict = FuseAllowance | FuseRefusal;

/** The one allowing verdict (frozen, shared). */
export const ALLOWED: FuseAllowance = Object.freeze({ allowed: true });

/** Build a frozen refusal. */
export function refusal(fields: Omit<FuseRefusal, 'allowed'>): FuseRefusal {
  return Object.freeze({
    allowed: false,
    fuse: fields.fuse,
    code: fields.code,
    reason: fields.reason,
    note: fields.note,
    terminal: fields.terminal,
    evidence: Object.freeze({ ...fields.evidence }),
  });
}

/** The message of anything thrown, without its stack (stable across replays). */
export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'a non-error value was thrown';
}

/**
 * The refusal that stands in for a fuse that threw: a bug is a refusal, never an exception, and it
 * is terminal because nobody knows what the fuse would have said.
 */
export function internalErrorRefusal(fuse: string, operation: string, error: unknown, subject: string): FuseRefusal {
  const message = errorMessage(error);
  return refusal({
    fuse,
    code: FuseCode.fuse_internal_error,
    reason: `Fuse \`${fuse}\` failed during \`${operation}\`: ${message}`,
    note: `${subject} was NOT executed: a safety check failed internally. Do not retry it; report the problem to the user`,
    terminal: true,
    evidence: { operation, error: message },
  });
}

/** Run `fn`; anything it throws becomes an internal-error refusal of `fuse`. */
export function guarded(fuse: string, operation: string, subject: string, fn: () => FuseVerdict): FuseVerdict {
  try {
    return fn();
  } catch (error) {
    return internalErrorRefusal(fuse, operation, error, subject);
  }
}

/** Join non-empty sentences with `. `, without a trailing period (house style for messages). */
export function sentences(...parts: readonly string[]): string {
  return parts.filter((part) => part.length > 0).join('. ');
}
