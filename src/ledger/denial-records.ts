/**
 * Denial records: the durable trace of a call its checks refused.
 *
 * A denial is written under a key of its own, derived from the refused transition's key and the
 * denied reasons, so no gate ever meets it and the transition stays unclaimed: the same call, once
 * allowed, claims its own key and runs exactly once. A denial holds no ticket index entry (it can
 * cause no identity conflict), no owner and no lease; its outcome is `BLOCKED` at boundary
 * `not_crossed` with the denying decision, so its effect state reads `ABORTED`.
 *
 * Repeats of one refusal (the same transition refused for the same reasons: a redispatch, a model
 * asking again in a later turn with the same call id, an `identity: 'intent'` call) land on the
 * same key and are counted in `attempts` by a compare-and-set, so a loop refused a thousand times
 * under one call id is one record. Refusals of different call ids are different records.
 *
 *   call A (call id c1) refused by `fuses` ─► create denial(key(c1), fuses) v1, attempts 1
 *   call A redispatched                     ─► create meets v1 ─► CAS v1 → v2, attempts 2
 *   fuses reset; call A allowed             ─► claims key(c1) (never held by the denial) ─► runs once
 *
 * Writing one never changes the refusal: a failed write is reported through the logger and the
 * `denial_not_recorded` event, and the caller still gets `LedgerDecisionDeniedError`.
 */
import { canonicalJson } from '../core/canonical-json.js';
import { sha256Hex } from '../core/fingerprint.js';
import type { TransitionDecision } from '../records/decision.js';
import type { TransitionRecord } from '../records/transition-record.js';
import { LedgerDecisionDeniedError } from './caller-verdicts.js';
import type { ExecutorContext } from './executor-context.js';
import type { PreparedCall } from './prepare-call.js';
import { afterRecorded, notify, receiptRefFor } from './receipts/ledger-receipts.js';
import { toRecordedError } from './stored-result.js';

/** How often a repeat retries its count after losing the compare-and-set to a concurrent repeat. */
const REPEAT_CAS_TRIES = 5;

/** The key of the denial record of `transitionKey` refused for `decision`'s denied reasons. */
export function denialKey(transitionKey: string, decision: TransitionDecision): string {
  return sha256Hex(
    canonicalJson({ schema: 'hyphae.denial/v1', transition: transitionKey, denied: [...decision.deniedReasons] }),
  );
}

/** The first denial record of a refused call. */
export function denialRecord(
  ctx: ExecutorContext,
  call: PreparedCall,
  decision: TransitionDecision,
  error: LedgerDecisionDeniedError,
  now: number,
): TransitionRecord {
  const { spec } = call;
  return {
    key: denialKey(call.key, decision),
    kind: 'denial',
    tool: spec.name,
    agentId: ctx.agentId,
    policyVersion: ctx.policyVersion,
    scope: call.scope,
    ticket: call.ticket,
    ticketKey: null,
    argsFingerprint: call.argsFingerprint,
    sideEffectClass: spec.sideEffectClass,
    retryPermission: spec.retryPermission,
    spendability: spec.spendability,
    outcome: 'BLOCKED',
    boundary: 'not_crossed',
    owner: null,
    fence: 0,
    version: 1,
    leaseUntil: null,
    lastHeartbeatAt: null,
    attempts: 1,
    error: { name: error.name, message: error.message, code: error.code },
    externalOperationRef: null,
    providerIdempotencyKey: null,
    firstAttemptAt: now,
    operatorResolution: null,
    receiptRef: receiptRefFor(ctx, 'outcome', 1),
    decision: Object.freeze({ ...decision, at: now }),
    refusedTransition: call.key,
    createdAt: now,
    updatedAt: now,
    completedAt: now,
  };
}

/** Count one more refusal on an existing denial record; false when it could not. */
async function countRepeat(ctx: ExecutorContext, met: TransitionRecord, now: number): Promise<boolean> {
  let current: TransitionRecord | null = met;
  for (let tries = 0; tries < REPEAT_CAS_TRIES && current !== null; tries++) {
    // A key derived for denials holds only denials; anything else there is left untouched.
    if (current.kind !== 'denial') return false;
    const next: TransitionRecord = {
      ...current,
      attempts: current.attempts + 1,
      version: current.version + 1,
      updatedAt: Math.max(now, current.updatedAt),
    };
    if (await ctx.storage.update(current.key, current.version, next)) {
      notify(ctx, { type: 'transition_recorded', record: next });
      return true;
    }
    current = await ctx.storage.get(current.key);
  }
  return false;
}

function reportFailure(ctx: ExecutorContext, record: TransitionRecord, error: unknown): void {
  const recorded = toRecordedError(error);
  ctx.logger?.error?.('Denial could not be recorded; the call was refused all the same', {
    key: record.key,
    transition: record.refusedTransition,
    tool: record.tool,
    error: recorded,
  });
  notify(ctx, { type: 'denial_not_recorded', record, error: recorded });
}

/**
 * Record the refusal of `call` (its decision denied) and raise it: the promise always rejects with
 * {@link LedgerDecisionDeniedError}, whatever the store did.
 */
export async function refuseDenied(
  ctx: ExecutorContext,
  call: PreparedCall,
  decision: TransitionDecision,
): Promise<never> {
  const refusal = new LedgerDecisionDeniedError(call.spec.name, decision);
  const now = ctx.clock.now();
  const record = denialRecord(ctx, call, decision, refusal, now);
  try {
    const created = await ctx.storage.create(record);
    if (created.created) await afterRecorded(ctx, record);
    else if (!(await countRepeat(ctx, created.record, now)))
      reportFailure(ctx, record, new Error('the denial record kept changing or is not a denial'));
  } catch (error) {
    reportFailure(ctx, record, error);
  }
  throw refusal;
}
