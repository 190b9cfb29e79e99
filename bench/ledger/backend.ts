/**
 * What a backend entry provides to the ledger bench. Adding a backend is one entry in
 * `backends/index.ts`: how to open its store, and the raw baseline each case is compared with.
 */
import type { LedgerStorage } from '../../src/index.js';
import type { TimedCase } from '../lib/measure.js';
import type { CaseKind } from './cases.js';
import type { WriteCount } from './write-counts.js';

/** What a backend's `call` case must reach. */
export type Target =
  | { readonly kind: 'ratio'; readonly max: number; readonly text: string }
  | { readonly kind: 'overheadUs'; readonly max: number; readonly text: string };

/** One open backend. */
export interface BackendSession {
  /** The store of one round: memory makes a fresh one (its map would grow all run), drivers reuse theirs. */
  storage(): LedgerStorage;
  /**
   * The baseline of each case, given what the ledger wrote for one call of it (so documents have
   * the same size). One baseline may serve several cases; it is then measured once.
   */
  baselines(writes: Readonly<Record<CaseKind, WriteCount>>): Record<CaseKind, TimedCase>;
  /** Close what was opened and remove what the run wrote. */
  close(): Promise<void>;
}

/** A backend entry. */
export interface Backend {
  readonly name: string;
  /** What the baseline is, for the report. */
  readonly baseline: string;
  readonly target?: Target;
  /** Null when the backend can run here, else why not (driver missing, server not answering). */
  available(): Promise<string | null>;
  /** Open the backend, keeping any files under `dir`. */
  open(dir: string): Promise<BackendSession>;
}
