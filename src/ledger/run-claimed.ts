/**
 * Run a body under a claim: renew the lease, expose the markers, record the outcome.
 */
import { LedgerFencedError } from '../errors.js';
import { ActiveClaim } from './active-claim.js';
import { markerScope } from './boundary-markers.js';
import type { Body, ExecutorContext } from './claim-records.js';
import type { Boundary, Outcome } from './envelope.js';
import type { PreparedCall } from './prepare-call.js';
import { afterRecorded, receiptRefFor } from './receipts/ledger-receipts.js';
import { toRecordedError, toStoredResult } from './stored-result.js';
import type { TransitionRecord } from './transition-record.js';
import type { CallOptions } from './types.js';

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

function startRenewal(ctx: ExecutorContext, claim: ActiveClaim, ttl: number): () => void {
  if (ttl <= 0) return () => undefined;
  const interval = Math.max(1, ctx.renewIntervalMs ?? Math.floor(ttl / 3));
  const { schedule } = ctx;
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    claim
      .write('renewLease', (_current, now) => ({ leaseUntil: now + ttl, lastHeartbeatAt: now }))
      .then(
        () => {
          if (!stopped) cancel = schedule(interval, tick);
        },
        (error: unknown) => {
          // A fenced or unreachable owner stops renewing; its completion will be refused or retried.
          if (!stopped)
            ctx.logger?.warn?.('Lease renewal stopped', { key: claim.record.key, error: toRecordedError(error) });
        },
      );
  };
  let cancel = schedule(interval, tick);
  return () => {
    stopped = true;
    cancel();
  };
}

/** Run `body` as the owner of `record` and record its outcome. */
export async function runClaimed(
  ctx: ExecutorContext,
  call: PreparedCall,
  record: TransitionRecord,
  body: Body,
  options: CallOptions,
): Promise<unknown> {
  const ttl = call.spec.leaseTtlMs ?? ctx.leaseTtlMs;
  const claim = new ActiveClaim(ctx.storage, record, ctx.clock, ttl);
  const stopRenewal = startRenewal(ctx, claim, ttl);
  let value: unknown;
  try {
    value = await markerScope.run({ claim, logger: ctx.logger, warned: ctx.markerWarned }, () =>
      body(call.args, options),
    );
  } catch (error) {
    stopRenewal();
    await recordFailure(ctx, claim, error);
    throw error;
  } finally {
    stopRenewal();
  }
  const stored = toStoredResult(value);
  let completed: TransitionRecord;
  try {
    completed = await claim.write('complete', (current, now) => ({
      outcome: 'COMPLETED',
      ...(stored.result === undefined ? {} : { result: stored.result }),
      error: stored.error,
      completedAt: now,
      leaseUntil: null,
      owner: null,
      receiptRef: receiptRefFor(ctx, 'outcome', current.version + 1),
    }));
  } catch (error) {
    if (error instanceof LedgerFencedError) throw error;
    // The effect happened and the caller gets its result; the record stays IN_FLIGHT (ambiguous),
    // so a redispatch after the lease will be blocked or reconciled, never silently re-run.
    ctx.logger?.error?.('Completion could not be recorded', {
      key: record.key,
      tool: record.tool,
      error: toRecordedError(error),
    });
    return value;
  }
  // The receipt never changes the result: its failures go to the logger, and the sweep repairs them.
  if (ctx.receipts !== undefined || ctx.onEvent !== undefined) await afterRecorded(ctx, completed);
  return value;
}

async function recordFailure(ctx: ExecutorContext, claim: ActiveClaim, error: unknown): Promise<void> {
  let failed: TransitionRecord;
  try {
    failed = await claim.write('fail', (current, now) => ({
      outcome: failureOutcome(claim.boundary),
      error: toRecordedError(error),
      completedAt: now,
      leaseUntil: null,
      owner: null,
      receiptRef: receiptRefFor(ctx, 'outcome', current.version + 1),
    }));
  } catch (storageError) {
    // The tool's own error wins; the record stays IN_FLIGHT and its lease decides what comes next.
    ctx.logger?.error?.('Failure could not be recorded', {
      key: claim.record.key,
      error: toRecordedError(storageError),
    });
    return;
  }
  await afterRecorded(ctx, failed);
}
