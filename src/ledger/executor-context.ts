/**
 * The settings of one ledger that every step of a call reads (storage, clock, leases, polling,
 * the reconciler, receipts): a module of its own, so the steps and the receipts they emit share it
 * without importing each other.
 */
import type { Clock } from '../core/clock.js';
import type { LedgerStorage } from '../storage/ledger-storage.js';
import type { ReceiptWriter } from './receipts/receipt-writer.js';
import type { LedgerEvent, LedgerLogger, Reconciler } from './types.js';
import type { DeathSignalPolicy } from './worker-death.js';

/** The ledger settings the executor reads. */
export interface ExecutorContext {
  readonly storage: LedgerStorage;
  readonly clock: Clock;
  readonly agentId: string;
  readonly policyVersion: string;
  readonly leaseTtlMs: number;
  /** Undefined: a third of the lease; 0: no renewal. */
  readonly renewIntervalMs: number | undefined;
  /** Arms a one-shot timer on the ledger clock (its `schedule`, or `sleep` when it has none). */
  readonly schedule: (ms: number, fn: () => void) => () => void;
  readonly pollIntervalMs: number;
  readonly pollMaxIntervalMs: number;
  readonly pollTimeoutMs: number | undefined;
  readonly reconciler: Reconciler | undefined;
  readonly reconcileTimeoutMs: number;
  readonly logger: LedgerLogger | undefined;
  readonly deferReadOnlyUnknown: boolean;
  /** Which classes need death evidence before an expired claim is taken over or released. */
  readonly reclaimRequiresDeathSignal: DeathSignalPolicy;
  /** Undefined: twice the lease of the call (or of the record). */
  readonly presumedDeadAfterMs: number | undefined;
  readonly markerWarned: Set<string>;
  /** Signs and appends receipts; undefined when receipts are off. */
  readonly receipts: ReceiptWriter | undefined;
  readonly onEvent: ((event: LedgerEvent) => void) | undefined;
  newOwner(): string;
}
