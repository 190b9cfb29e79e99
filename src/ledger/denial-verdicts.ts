/**
 * The denying verdicts a guard hands the ledger for a call it refused, so the ledger writes the
 * refusal's denial record (the transition stays unclaimed). Reasons are fixed texts and codes,
 * never an error's message, which may quote arguments.
 */
import { GuardError } from '../errors.js';
import type { FuseRefusal } from '../fuses/verdict.js';
import type { DecisionVerdict } from '../records/decision.js';

/** The denying verdict of a fuse refusal: the fuse and its code. */
export function fuseDenial(verdict: FuseRefusal): DecisionVerdict {
  return { check: 'fuses', verdict: 'deny', reason: `${verdict.fuse}: ${verdict.code}` };
}

/** The denying verdict of a check that threw: its stable code. */
export function errorDenial(check: string, error: unknown): DecisionVerdict {
  return { check, verdict: 'deny', reason: error instanceof GuardError ? error.code : 'refused' };
}

/**
 * The body of a call handed to the ledger only to record its refusal: the verdicts handed over
 * always deny, so the ledger refuses before any body could run.
 */
export function refusedBody(): never {
  throw new GuardError('decision_denied', 'A refused call has no body');
}
