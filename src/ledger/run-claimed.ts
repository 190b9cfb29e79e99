/**
 * Run a body under a claim: renew the lease, expose the markers, record the outcome.
 *
 * The claim lives as long as the body, not as long as the caller's patience. When the caller's
 * signal fires, the caller is answered at once with the abort reason, but the body may still be
 * running (one that ignores the signal, or a wrapper that gave up on its inner call), so the
 * claim stays IN_FLIGHT with its lease renewed until the body settles, and then records what
 * really happened:
 *
 *   caller  call ─► claim (IN_FLIGHT) ─► body starts ── signal fires ─► rejects with the reason
 *   body                                 ─────────── still running ─────────── settles ─► outcome
 *   retry                                                   call ─► POLL (lease held) ──► RETURN
 *
 * A rejection that arrives after the signal fired, or that is itself an abort or a timeout, is
 * ambiguous: see {@link rejectedOutcome}.
 */
import { LedgerFencedError } from '../errors.js';
import type { Outcome } from '../records/envelope.js';
import type { TransitionRecord } from '../records/transition-record.js';
import { ActiveClaim } from './active-claim.js';
import { failureOutcome, rejectedOutcome } from './ambiguous-failure.js';
import { markerScope } from './boundary-markers.js';
import type { CallTrace } from './call-trace.js';
import type { Body } from './claim-records.js';
import type { ExecutorContext } from './executor-context.js';
import type { PreparedCall } from './prepare-call.js';
import { afterRecorded, receiptRefFor } from './receipts/ledger-receipts.js';
import { toRecordedError, toStoredResult } from './stored-result.js';
import type { CallOptions } from './types.js';

function startRenewal(ctx: ExecutorContext, claim: ActiveClaim, ttl: number, trace: CallTrace | undefined): () => void {
  if (ttl <= 0 || ctx.renewIntervalMs === 0) return () => undefined;
  const interval = Math.max(1, ctx.renewIntervalMs ?? Math.floor(ttl / 3));
  const { schedule } = ctx;
  let stopped = false;
  const tick = (): void => {
    if (stopped) return;
    claim
      .write('renewLease', (_current, now) => ({ leaseUntil: now + ttl, lastHeartbeatAt: now }))
      .then(
        (renewed) => {
          trace?.leaseRenewed(renewed);
          if (!stopped) cancel = schedule(interval, tick);
        },
        (error: unknown) => {
          if (error instanceof LedgerFencedError) trace?.fenced(claim.record);
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

/** How a body settled, and whether the caller's signal had fired by then. */
type Settled =
  | { readonly ok: true; readonly value: unknown }
  | { readonly ok: false; readonly error: unknown; readonly aborted: boolean };

/** Run `body` as the owner of `record` and record its outcome. */
export async function runClaimed(
  ctx: ExecutorContext,
  call: PreparedCall,
  record: TransitionRecord,
  body: Body,
  options: CallOptions,
  trace?: CallTrace,
): Promise<unknown> {
  const ttl = call.spec.leaseTtlMs ?? ctx.leaseTtlMs;
  const claim = new ActiveClaim(ctx.storage, record, ctx.clock, ttl);
  const signal = options.abortSignal;
  if (signal?.aborted === true) {
    // Aborted between the claim and the body: nothing ran, and the record says so. A fresh claim
    // written `maybe_crossed` for a whole-body effect goes back to `not_crossed`; a takeover keeps
    // what the attempts before it left.
    const unstarted = call.spec.boundary === 'body' && record.attempts === 1;
    const outcome = unstarted ? 'FAILED_BEFORE_EFFECT' : failureOutcome(claim.boundary);
    await recordFailure(ctx, claim, signal.reason, outcome, trace, unstarted);
    throw signal.reason;
  }
  const stopRenewal = startRenewal(ctx, claim, ttl, trace);
  const settled = (async (): Promise<Settled> => {
    try {
      const value = await markerScope.run({ claim, logger: ctx.logger, warned: ctx.markerWarned }, () =>
        body(call.args, options),
      );
      // A whole-body effect that returned crossed its boundary; the completing write carries it.
      if (call.spec.boundary === 'body') claim.notePendingBoundary('crossed');
      return { ok: true, value };
    } catch (error) {
      return { ok: false, error, aborted: signal?.aborted === true };
    } finally {
      stopRenewal();
    }
  })();
  const recorded = settled.then((outcome) => recordOutcome(ctx, call, claim, outcome, trace));
  if (signal === undefined) return await recorded;
  return await answerOrAbort(ctx, claim, recorded, signal);
}

/**
 * The recorded outcome, or the abort reason as soon as `signal` fires; the recording then goes on
 * without the caller, and what it cannot write goes to the logger.
 */
function answerOrAbort(
  ctx: ExecutorContext,
  claim: ActiveClaim,
  recorded: Promise<unknown>,
  signal: AbortSignal,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const onAbort = (): void => {
      if (answered) return;
      answered = true;
      reject(signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    recorded.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        if (answered) return;
        answered = true;
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        if (answered) {
          // The body failed after its caller left; the outcome is recorded, the error has no reader.
          if (error instanceof LedgerFencedError)
            ctx.logger?.warn?.('Fenced after the caller aborted', { key: claim.record.key });
          return;
        }
        answered = true;
        reject(error);
      },
    );
  });
}

async function recordOutcome(
  ctx: ExecutorContext,
  call: PreparedCall,
  claim: ActiveClaim,
  outcome: Settled,
  trace: CallTrace | undefined,
): Promise<unknown> {
  if (!outcome.ok) {
    const { error, aborted } = outcome;
    const { spendability } = call.spec;
    const failed = rejectedOutcome({ boundary: claim.boundary, spendability, error, aborted });
    await recordFailure(ctx, claim, error, failed, trace);
    throw outcome.error;
  }
  const { value } = outcome;
  const record = claim.record;
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
    if (error instanceof LedgerFencedError) {
      trace?.fenced(record);
      throw error;
    }
    // The effect happened and the caller gets its result; the record stays IN_FLIGHT (ambiguous),
    // so a redispatch after the lease will be blocked or reconciled, never silently re-run.
    ctx.logger?.error?.('Completion could not be recorded', {
      key: record.key,
      tool: record.tool,
      error: toRecordedError(error),
    });
    return value;
  }
  trace?.recorded(completed);
  // The receipt never changes the result: its failures go to the logger, and the sweep repairs them.
  if (ctx.receipts !== undefined || ctx.onEvent !== undefined) await afterRecorded(ctx, completed);
  return value;
}

async function recordFailure(
  ctx: ExecutorContext,
  claim: ActiveClaim,
  error: unknown,
  outcome: Outcome,
  trace: CallTrace | undefined,
  unstarted = false,
): Promise<void> {
  let failed: TransitionRecord;
  try {
    failed = await claim.write(
      'fail',
      (current, now) => ({
        outcome,
        ...(unstarted ? { boundary: 'not_crossed' as const } : {}),
        error: toRecordedError(error),
        completedAt: now,
        leaseUntil: null,
        owner: null,
        receiptRef: receiptRefFor(ctx, 'outcome', current.version + 1),
      }),
      unstarted,
    );
  } catch (storageError) {
    if (storageError instanceof LedgerFencedError) trace?.fenced(claim.record);
    // The tool's own error wins; the record stays IN_FLIGHT and its lease decides what comes next.
    ctx.logger?.error?.('Failure could not be recorded', {
      key: claim.record.key,
      error: toRecordedError(storageError),
    });
    return;
  }
  trace?.recorded(failed);
  await afterRecorded(ctx, failed);
}
