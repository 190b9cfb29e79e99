/**
 * `hyphae/restate`: exactly-once side effects inside Restate handlers — `ledgeredRun` runs a
 * `ctx.run` action through the ledger keyed by the invocation id and the run's name, and turns a
 * hard block into Restate's non-retryable `TerminalError`.
 *
 * @module
 */
export * from './durable/public.js';
export {
  type LedgeredRunOptions,
  ledgeredRun,
  type RestateRunBodyContext,
  type RestateRunContext,
  type RestateRunRetryOptions,
  toRestateError,
} from './restate/ledgered-run.js';
