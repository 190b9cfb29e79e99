/**
 * The operator dashboard (`hyphae dashboard`): re-exports only. Loads `hono` and
 * `@hono/node-server`, so only the dashboard command imports it, lazily.
 */
export {
  checkToken,
  type DashboardToken,
  isLoopback,
  LOOPBACK_HOSTS,
  MIN_TOKEN_LENGTH,
  TokenScope,
} from './auth.js';
export { createDashboardApp, SESSION_COOKIE } from './create-dashboard-app.js';
export type { DashboardOptions } from './dashboard-options.js';
export { DEFAULT_LIMITS, type NamedLedger, type QueryLimits } from './queries.js';
export type { DashboardReceipts } from './receipt-chain.js';
export { type RunningDashboard, type StartDashboardOptions, startDashboard } from './start-dashboard.js';
