/**
 * What a HARD_BLOCK (or REPAIR) becomes: a consumed operator release, a reconciled result, a
 * proven-not-executed rerun, or a `LedgerHardBlockError`.
 *
 * Two callers reconciling the same record race on one compare-and-set:
 *
 *   A: reconcile → NOT_EXECUTED → CAS(v3 → v4, fence+1) wins ─► runs the body once
 *   B: reconcile → NOT_EXECUTED → CAS(v3 → v4) loses ─► re-reads IN_FLIGHT ─► POLL ─► RETURN
 */
import { LedgerHardBlockError } from '../errors.js';
import type { TransitionRecord } from '../records/transition-record.js';
import { asStorageError } from './active-claim.js';
import { takeoverRecord, tryTakeover } from './claim-records.js';
import type { ExecutorContext } from './executor-context.js';
import type { PreparedCall } from './prepare-call.js';
import { afterRecorded, receiptRefFor } from './receipts/ledger-receipts.js';
import { claimHasExpired, type GateDecision } from './resolve-gate.js';
import { completedWith, readStoredResult } from './stored-result.js';
import type { ReconcileVerdict } from './types.js';

/** The next step after a hard block. */
export type HardBlockResolution =
  | { readonly kind: 'run'; readonly record: TransitionRecord; readonly via: 'release' | 'reconciled' }
  | { readonly kind: 'return'; readonly value: unknown; readonly record: TransitionRecord }
  /** The record changed under us: resolve its gate again. */
  | { readonly kind: 'again'; readonly record: TransitionRecord };

async function reread(ctx: ExecutorContext, key: string, fallback: TransitionRecord): Promise<TransitionRecord> {
  try {
    return (await ctx.storage.get(key)) ?? fallback;
  } catch (error) {
    throw asStorageError('read', error);
  }
}

async function askReconciler(
  ctx: ExecutorContext,
  call: PreparedCall,
  record: TransitionRecord,
  ref: string,
): Promise<ReconcileVerdict & { readonly failure?: string }> {
  const reconciler = call.spec.reconciler ?? ctx.reconciler;
  if (reconciler === undefined) return { status: 'UNKNOWN', reason: 'no reconciler is configured' };
  const controller = new AbortController();
  const timer = new AbortController();
  // The timeout runs on the ledger's clock, so a manual clock drives it in tests and replays.
  const timeout = ctx.clock.sleep(ctx.reconcileTimeoutMs, timer.signal).then(
    (): ReconcileVerdict => {
      controller.abort(new Error('Reconcile timed out'));
      return { status: 'UNKNOWN', reason: `the reconciler did not answer within ${ctx.reconcileTimeoutMs} ms` };
    },
    (): ReconcileVerdict => ({ status: 'UNKNOWN', reason: 'the reconcile was cancelled' }),
  );
  try {
    const verdict = await Promise.race([
      Promise.resolve().then(() =>
        reconciler({ record, externalOperationRef: ref, args: call.args, signal: controller.signal }),
      ),
      timeout,
    ]);
    if (verdict?.status === 'COMPLETED' || verdict?.status === 'NOT_EXECUTED' || verdict?.status === 'UNKNOWN')
      return verdict;
    return { status: 'UNKNOWN', reason: 'the reconciler returned no known status' };
  } catch (error) {
    // A throwing reconciler proves nothing: fail closed.
    return {
      status: 'UNKNOWN',
      reason: `the reconciler threw: ${error instanceof Error ? error.message : String(error)}`,
    };
  } finally {
    timer.abort();
  }
}

/** Resolve a hard block: release, reconcile, or refuse. */
export async function resolveHardBlock(
  ctx: ExecutorContext,
  call: PreparedCall,
  existing: TransitionRecord,
  decision: GateDecision,
): Promise<HardBlockResolution> {
  const now = ctx.clock.now();
  const release = existing.operatorResolution;
  if (release?.verified === 'not_executed' && release.consumedAt === null) {
    const next = takeoverRecord(ctx, call, existing, now, {
      proven: true,
      operatorResolution: { ...release, consumedAt: now },
      claim: `operator release: not_executed, verified by ${release.by}`,
    });
    if (await tryTakeover(ctx, existing, next)) return { kind: 'run', record: next, via: 'release' };
    return { kind: 'again', record: await reread(ctx, existing.key, existing) };
  }

  const ref = existing.externalOperationRef;
  const outcome = claimHasExpired(existing, now) ? 'EXPIRED' : existing.outcome;
  if (decision.gate === 'REPAIR' || ref === null) {
    throw new LedgerHardBlockError(existing, decision.reason, {
      gate: decision.gate === 'REPAIR' ? 'REPAIR' : 'HARD_BLOCK',
      outcome,
    });
  }
  const verdict = await askReconciler(ctx, call, existing, ref);
  if (verdict.status === 'COMPLETED') {
    const at = ctx.clock.now();
    const next: TransitionRecord = {
      ...completedWith(existing, verdict.result, at),
      version: existing.version + 1,
      receiptRef: receiptRefFor(ctx, 'outcome', existing.version + 1),
      updatedAt: at,
    };
    if (await tryTakeover(ctx, existing, next)) {
      await afterRecorded(ctx, next);
      return { kind: 'return', value: readStoredResult(next), record: next };
    }
    return { kind: 'again', record: await reread(ctx, existing.key, existing) };
  }
  if (verdict.status === 'NOT_EXECUTED') {
    const next = takeoverRecord(ctx, call, existing, ctx.clock.now(), {
      proven: true,
      claim: `reconciled: \`${ref}\` NOT_EXECUTED`,
    });
    if (await tryTakeover(ctx, existing, next)) return { kind: 'run', record: next, via: 'reconciled' };
    return { kind: 'again', record: await reread(ctx, existing.key, existing) };
  }
  throw new LedgerHardBlockError(
    existing,
    `${decision.reason}; reconcile of \`${ref}\`: ${verdict.reason ?? 'UNKNOWN'}`,
    {
      outcome,
    },
  );
}
