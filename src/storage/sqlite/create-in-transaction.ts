/**
 * The create of the SQLite store: both lookups and the insert under one write lock, with the
 * cross-checks that catch a damaged index instead of taking a hidden record for an absent one.
 */
import { LedgerStorageCorruptError } from '../../errors.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { SqliteConnection } from './open-connection.js';
import { sqliteErrorCode } from './sqlite-error-code.js';
import { decodeLookup, insertParams } from './transition-rows.js';

/** What a create found in the way. */
export type CreateConflict = { readonly conflict: 'key' | 'ticket'; readonly record: TransitionRecord };

/**
 * The create function of one connection: null when the record was inserted, else the conflict.
 *
 * Two creators A and B of one key or ticket, in this process or another:
 *   A: BEGIN IMMEDIATE takes the lock      B: BEGIN IMMEDIATE waits (up to busy_timeout)
 *   A: no row by key or ticket → INSERT, COMMIT
 *   B: takes the lock, finds A's row → returns it as the conflict; writes nothing
 *
 * A damaged index entry (bits flipped in an index page: `quick_check` passes, `integrity_check`
 * does not) can hide a record from a lookup, so no single index decides that a call never ran. The
 * key is looked up through its `UNIQUE` index and, when that misses, through its second index (its
 * own b-tree); the ticket through the ticket index. Damage shows as two of them disagreeing: the
 * second index or the ticket's holder has the very key the key lookup missed, or the insert hits a
 * unique constraint no lookup saw. Each fails closed as corrupt; running the call again would
 * repeat an effect the hidden record holds. A call without a ticket has the second index as its
 * other witness (the insert's constraint check reads the same damaged key index, and passes).
 */
export function createInTransaction(
  { db, statements }: SqliteConnection,
  location: string,
): (record: TransitionRecord, doc: string) => CreateConflict | null {
  const damaged = (key: string, what: string): LedgerStorageCorruptError =>
    new LedgerStorageCorruptError(
      `${location}#${key}`,
      `${what}: an index is damaged (run \`hyphae doctor --deep\`; restore the file from a backup or rebuild its indexes with \`REINDEX\`)`,
    );
  return function createRecord(record, doc) {
    return db.immediate((): CreateConflict | null => {
      const byKey = decodeLookup(statements.selectByKey.get(record.key), 'key', record.key, location);
      if (byKey !== null) return { conflict: 'key', record: byKey };
      if (statements.selectByKeyWitness.get(record.key) !== undefined)
        throw damaged(record.key, 'the second index of the key holds a record the key index lookup missed');
      const ticket = record.ticketKey;
      const holder =
        ticket === null ? null : decodeLookup(statements.selectByTicket.get(ticket), 'ticket', ticket, location);
      if (holder !== null) {
        if (holder.key === record.key)
          throw damaged(record.key, 'the ticket index holds a record the key lookup missed');
        return { conflict: 'ticket', record: holder };
      }
      try {
        statements.insert.run(...insertParams(record, doc));
      } catch (error) {
        if (sqliteErrorCode(error)?.startsWith('SQLITE_CONSTRAINT') === true) {
          throw damaged(record.key, 'the insert hit a unique key or ticket that neither lookup found');
        }
        throw error;
      }
      return null;
    });
  };
}
