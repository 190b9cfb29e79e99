/**
 * What a dashboard serves and who may use it.
 */
import type { Clock } from '../core/clock.js';
import type { DashboardToken } from './auth.js';
import type { PinReviewerOf } from './pins.js';
import type { NamedLedger, QueryLimits } from './queries.js';
import type { DashboardReceipts } from './receipt-chain.js';

/** Options of {@link createDashboardApp}. */
export interface DashboardOptions {
  /** The config's ledgers, each under the name the pages show. */
  readonly ledgers: readonly NamedLedger[];
  /** The receipt chain and its keys, when the config has receipts. */
  readonly receipts?: DashboardReceipts;
  /** Accepted tokens. Without any, only {@link DashboardOptions.allowAnonymous} lets anyone in. */
  readonly tokens?: readonly DashboardToken[];
  /** Let requests without a token in (with scope `act`); only for a dashboard bound to loopback. */
  readonly allowAnonymous?: boolean;
  /** The host names (`Host` without its port) answered; others are refused (DNS rebinding). Default: any. */
  readonly allowedHosts?: readonly string[];
  /** Refuse every action whatever the token's scope. */
  readonly readOnly?: boolean;
  readonly clock?: Clock;
  /** Told of an error the dashboard answered with a 503 (a store that fails, a bug); it never prints. */
  readonly onError?: (error: unknown) => void;
  readonly limits?: Partial<QueryLimits>;
  /**
   * The MCP proxy's pin store of a ledger, for the MCP pins page (`hyphae dashboard` passes
   * `createPinStore` of `hyphae/mcp`). Without it the page says it has no pins to show.
   */
  readonly pins?: PinReviewerOf;
}
