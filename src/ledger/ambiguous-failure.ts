/**
 * Which failures prove that nothing happened. A body that rejected because it was aborted or timed
 * out may still be running (a wrapper raced it against a signal and gave up on it), so its
 * rejection says nothing about the effect.
 */
import type { Boundary, Outcome, Spendability } from '../records/envelope.js';

/** Error names (and name endings) of aborts and timeouts: DOM, Node, fetch and SDK clients. */
const AMBIGUOUS_NAME = /(?:Abort|Timeout)Error$/;
const AMBIGUOUS_CODES: ReadonlySet<string> = new Set(['ABORT_ERR', 'ETIMEDOUT', 'UND_ERR_HEADERS_TIMEOUT']);
/** The message LangChain gives an abort whose reason is not an error. */
const ABORTED_MESSAGE = 'Aborted';

/**
 * True for an abort- or timeout-shaped error (an `AbortError`, a `TimeoutError`, an SDK's
 * `APIUserAbortError` or `APIConnectionTimeoutError`, Node's `ABORT_ERR`), here or in its `cause`.
 */
export function isAbortShaped(error: unknown, depth = 0): boolean {
  if (error === null || typeof error !== 'object' || depth > 3) return false;
  const { name, code, message, cause } = error as {
    name?: unknown;
    code?: unknown;
    message?: unknown;
    cause?: unknown;
  };
  if (typeof name === 'string' && AMBIGUOUS_NAME.test(name)) return true;
  if (typeof code === 'string' && AMBIGUOUS_CODES.has(code)) return true;
  if (message === ABORTED_MESSAGE) return true;
  return cause !== undefined && isAbortShaped(cause, depth + 1);
}

/** A failed attempt's outcome follows from how far its boundary got. */
export function failureOutcome(boundary: Boundary): Outcome {
  switch (boundary) {
    case 'not_crossed':
      return 'FAILED_BEFORE_EFFECT';
    case 'maybe_crossed':
      return 'UNKNOWN';
    case 'crossed':
      return 'FAILED_AFTER_EFFECT';
  }
}

/** How a body's rejection came about. */
export interface FailureFacts {
  readonly boundary: Boundary;
  readonly spendability: Spendability;
  readonly error: unknown;
  /** The caller's signal had fired when the body settled. */
  readonly aborted: boolean;
}

/**
 * The outcome of a rejected body. Before its boundary a rejection proves nothing happened only when
 * it was not an abort or a timeout: one of those (or any rejection after the caller's signal
 * fired) may have left the body running, so for a class that may not be spent twice it is
 * UNKNOWN, never FAILED_BEFORE_EFFECT. A `multi_use` class may run again, so it keeps the rule.
 */
export function rejectedOutcome(facts: FailureFacts): Outcome {
  const outcome = failureOutcome(facts.boundary);
  if (outcome !== 'FAILED_BEFORE_EFFECT' || facts.spendability === 'multi_use') return outcome;
  return facts.aborted || isAbortShaped(facts.error) ? 'UNKNOWN' : outcome;
}
