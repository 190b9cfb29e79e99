/**
 * What an operator gives an action, checked once for every front door: the ledger API,
 * `hyphae transitions` and the dashboard call these same checks, so each refuses what the others
 * refuse, with the same words. Pure: no store, no clock.
 */
import { InvalidArgumentError, kindOf, objectArgument } from '../../invalid-argument.js';
import type { AuditInput, MarkWorkerDeadInput, ReleaseInput } from '../types.js';

/** What a release says the operator verified with the provider. */
export const RELEASE_VERDICTS = ['completed', 'not_executed'] as const;

function requiredText(fn: string, input: object, field: 'by' | 'reason', says: string): string {
  const value = (input as Record<string, unknown>)[field];
  if (typeof value !== 'string' || value.trim() === '') {
    const got = typeof value === 'string' ? 'a blank string' : kindOf(value);
    throw new InvalidArgumentError(fn, field, `is required (${says}), got ${got}`);
  }
  return value;
}

/** Who acts and why: both non-blank strings. */
export function checkAudit(fn: string, input: AuditInput): AuditInput {
  objectArgument(fn, 'input', input);
  return {
    by: requiredText(fn, input, 'by', 'who acts'),
    reason: requiredText(fn, input, 'reason', 'why'),
  };
}

/**
 * A release: who, why, what was verified, and a result only with `completed` (a call that did not
 * execute has none).
 */
export function checkRelease(input: ReleaseInput): ReleaseInput {
  const audit = checkAudit('release', input);
  const { verified, result } = input as { verified?: unknown; result?: unknown };
  if (verified !== 'completed' && verified !== 'not_executed') {
    throw new InvalidArgumentError(
      'release',
      'verified',
      `must be \`completed\` or \`not_executed\`, got ${typeof verified === 'string' ? `\`${verified}\`` : kindOf(verified)}`,
    );
  }
  if (verified === 'not_executed') {
    if (result !== undefined) {
      throw new InvalidArgumentError(
        'release',
        'result',
        "goes only with `verified: 'completed'`: a call that did not execute has no result",
      );
    }
    return { ...audit, verified };
  }
  return result === undefined ? { ...audit, verified } : { ...audit, verified, result };
}

/** A worker-death mark: who, why, and whether a fresh heartbeat is overridden (a boolean). */
export function checkMarkDead(input: MarkWorkerDeadInput): MarkWorkerDeadInput {
  const audit = checkAudit('markWorkerDead', input);
  const { overrideHeartbeat } = input;
  if (overrideHeartbeat !== undefined && typeof overrideHeartbeat !== 'boolean') {
    throw new InvalidArgumentError(
      'markWorkerDead',
      'overrideHeartbeat',
      `must be a boolean, got ${kindOf(overrideHeartbeat)}`,
    );
  }
  return overrideHeartbeat === undefined ? audit : { ...audit, overrideHeartbeat };
}

/** What `markWorkerDead` is pointed at: a transition key, `{ key }` or `{ owner }`, each non-empty. */
export function checkDeathTarget(
  target: unknown,
): { readonly key: string; readonly owner?: undefined } | { readonly owner: string; readonly key?: undefined } {
  if (typeof target === 'object' && target !== null && 'owner' in target) {
    const { owner } = target as { owner: unknown };
    if (typeof owner !== 'string' || owner.trim() === '') {
      throw new InvalidArgumentError(
        'markWorkerDead',
        'target.owner',
        `must be a non-empty string, got ${kindOf(owner)}`,
      );
    }
    return { owner };
  }
  const key = typeof target === 'string' ? target : (target as { key?: unknown } | null)?.key;
  if (typeof key !== 'string' || key === '') {
    throw new InvalidArgumentError(
      'markWorkerDead',
      'target',
      `must be a transition key, \`{ key }\` or \`{ owner }\`, got ${kindOf(key ?? target)}`,
    );
  }
  return { key };
}
