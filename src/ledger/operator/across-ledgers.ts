/**
 * An operator action on a key across a config's ledgers (the action ledger, the task ledger): each
 * is asked in turn, and the one that holds the key reads its record once, inside the action.
 */
import { LedgerError, LedgerReleaseRefusedError } from '../../errors.js';
import type { TransitionRecord } from '../../records/transition-record.js';

/** True when `error` says the ledger holds no record of the key, so another ledger may. */
export function isNotFound(error: unknown): boolean {
  return (
    (error instanceof LedgerReleaseRefusedError && error.record === null) ||
    (error instanceof LedgerError && error.code === 'ledger_not_found')
  );
}

/** The record an operator action's refusal is about, when it names one. */
export function refusedRecord(error: unknown): TransitionRecord | null {
  const record = (error as { record?: unknown } | null)?.record;
  return typeof record === 'object' && record !== null ? (record as TransitionRecord) : null;
}

/**
 * Run `act` on each of `ledgers` in turn until one holds the transition (`act` reads it, once).
 * Undefined when none holds it; any other refusal is thrown.
 */
export async function actWhereHeld<L, R>(
  ledgers: readonly L[],
  act: (ledger: L) => Promise<R>,
): Promise<{ readonly ledger: L; readonly value: R } | undefined> {
  for (const ledger of ledgers) {
    try {
      return { ledger, value: await act(ledger) };
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  }
  return undefined;
}
