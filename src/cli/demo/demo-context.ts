/**
 * What the demo steps share.
 */

import type { Ledger } from '../../ledger/types.js';
import type { LedgerScope } from '../../records/transition-record.js';
import type { DemoBackend } from './open-storage.js';

/** The backend, the run's scope and the parent's ledger. */
export interface DemoContext {
  readonly dir: string;
  readonly backend: DemoBackend;
  /** Every demo run has its own scope, so a shared ledger never replays an earlier run. */
  readonly scope: LedgerScope;
  readonly gatewayPath: string;
  readonly leaseTtlMs: number;
  readonly ledger: Ledger;
}

/** What a step found. */
export interface StepReport {
  readonly pass: boolean;
  readonly lines: readonly string[];
}
