/**
 * Boundary markers: what a tool body tells the ledger about its external effect.
 *
 * They find the running claim through AsyncLocalStorage, so they work in any async code the body
 * awaits. Outside a ledgered tool they do nothing and say so once through the ledger's logger.
 */
import { type AsyncScope, createAsyncScope } from '../core/scope.js';
import { InvalidArgumentError, kindOf } from '../invalid-argument.js';
import type { ActiveClaim } from './active-claim.js';
import type { LedgerLogger } from './types.js';

/** What the markers can see of the call they run in. */
export interface MarkerContext {
  readonly claim: ActiveClaim | null;
  readonly logger: LedgerLogger | undefined;
  /** Markers already reported as used outside a ledgered tool, per ledger. */
  readonly warned: Set<string>;
}

/** The async-local slot carrying the running claim (set by the ledger, read by the markers). */
export const markerScope: AsyncScope<MarkerContext> = createAsyncScope<MarkerContext>();

function activeClaim(marker: string): ActiveClaim | null {
  const context = markerScope.get();
  if (context?.claim != null) return context.claim;
  if (context !== undefined && !context.warned.has(marker)) {
    context.warned.add(marker);
    context.logger?.warn?.(`\`${marker}\` was called outside a ledgered tool and did nothing`, { marker });
  }
  return null;
}

/**
 * Run the external call `fn` behind a durable boundary: `maybe_crossed` is written *before* `fn`
 * runs, and `crossed` is recorded when it returns (carried by the completing write).
 *
 * If the mark cannot be written, `fn` does not run. If `fn` throws, the boundary stays
 * `maybe_crossed` and the call is recorded as UNKNOWN.
 *
 * @example
 * const charge = ledger.tool({ name: 'charge', sideEffectClass: 'payment' }, async (args) =>
 *   sideEffect(async () => {
 *     const intent = await gateway.charge(args);
 *     recordExternalOperation(intent.id);
 *     return intent;
 *   }),
 * );
 */
export async function sideEffect<T>(fn: () => T | Promise<T>): Promise<T> {
  if (typeof fn !== 'function')
    throw new InvalidArgumentError('sideEffect', 'fn', `must be a function, got ${kindOf(fn)}`);
  const claim = activeClaim('sideEffect');
  if (claim === null) return fn();
  // A boundary already durable past `not_crossed` (a claim of a whole-body effect, an earlier
  // marker) says as much as the write would: the boundary never moves back.
  if (claim.record.boundary === 'not_crossed') await claim.write('sideEffect', () => ({ boundary: 'maybe_crossed' }));
  const value = await fn();
  claim.notePendingBoundary('crossed');
  return value;
}

/** Durably mark that the external effect may have happened. */
export async function markMaybeCrossed(): Promise<void> {
  await activeClaim('markMaybeCrossed')?.write('markMaybeCrossed', () => ({ boundary: 'maybe_crossed' }));
}

/** Durably mark that the external effect happened. */
export async function markCrossed(): Promise<void> {
  await activeClaim('markCrossed')?.write('markCrossed', () => ({ boundary: 'crossed' }));
}

/** Durably record the provider's operation id, so a reconciler can ask about it after a crash. */
export async function recordExternalOperation(ref: string): Promise<void> {
  if (typeof ref !== 'string' || ref === '') {
    throw new InvalidArgumentError('recordExternalOperation', 'ref', `must be a non-empty string, got ${kindOf(ref)}`);
  }
  await activeClaim('recordExternalOperation')?.write('recordExternalOperation', () => ({ externalOperationRef: ref }));
}

/** Extend the running call's lease now (it is also renewed automatically). */
export async function renewLease(): Promise<void> {
  const claim = activeClaim('renewLease');
  await claim?.write('renewLease', (_current, now) => ({ leaseUntil: claim.leaseUntil(now), lastHeartbeatAt: now }));
}
