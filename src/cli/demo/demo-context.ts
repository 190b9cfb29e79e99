/**
 * What the demo steps share.
 */
import type { Ledger } from '../../ledger/types.js';

/** Paths and the parent's ledger, on one SQLite file in a temp folder. */
export interface DemoContext {
  readonly dir: string;
  readonly dbPath: string;
  readonly gatewayPath: string;
  readonly leaseTtlMs: number;
  readonly ledger: Ledger;
}

/** What a step found. */
export interface StepReport {
  readonly pass: boolean;
  readonly lines: readonly string[];
}
