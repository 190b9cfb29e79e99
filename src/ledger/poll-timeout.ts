/**
 * How long a caller waits for another owner of the same transition.
 *
 * A waiter polls while the lease is held, and the owner keeps it held by renewing it (every third
 * of the lease by default) for as long as its body runs. A slow, healthy call therefore keeps its
 * peers waiting, and only a stop of the renewals (the owner died or froze) lets the lease expire
 * and sends them back to the claim path. The poll timeout bounds the wait on a body that runs, and
 * renews, without end: it is not a guess at how long a call takes.
 */

/**
 * The default poll timeout: 30 minutes. Six default leases, and twice the longest run of common
 * serverless functions (15 minutes): a healthy long tool call finishes within it, and a caller with
 * a shorter deadline of its own passes an abort signal, which ends the wait sooner.
 */
export const DEFAULT_POLL_TIMEOUT_MS = 1_800_000;

/**
 * The poll timeout of a call: the requested one or the default, never shorter than a bounded lease
 * (a waiter must be able to see the lease expire).
 */
export function pollTimeoutOf(requestedMs: number | undefined, leaseTtlMs: number): number {
  const timeout = requestedMs ?? DEFAULT_POLL_TIMEOUT_MS;
  return leaseTtlMs > 0 ? Math.max(timeout, leaseTtlMs) : timeout;
}
