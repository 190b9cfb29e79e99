/**
 * The check a store makes when it opens a ledger: every row of the transitions table must be found,
 * at its own row, through both indexes of the key and (when it holds a ticket) through the ticket
 * index.
 */
import { LedgerStorageCorruptError } from '../../errors.js';
import { keyWitnessIndex, type SqliteTables } from './schema.js';
import type { SqliteHandle } from './sqlite-handle.js';

/** The automatic indexes of the table's `UNIQUE` columns, in the order the table declares them. */
export function uniqueIndexes(tables: SqliteTables): { key: string; ticket: string } {
  const t = tables.transitions;
  return { key: `sqlite_autoindex_${t}_1`, ticket: `sqlite_autoindex_${t}_2` };
}

/**
 * The statement counting the rows the key index, the key's second index or the ticket index does
 * not lead back to.
 *
 * `NOT INDEXED` makes the outer scan read the table itself (SQLite would otherwise scan a covering
 * index, perhaps the damaged one, and compare it with itself); `INDEXED BY` makes each probe seek
 * the index under test. An entry whose key bits were flipped is sought and missed; one pointing at
 * another row is found with the wrong rowid. Either way the row counts.
 */
export function indexCheckSql(tables: SqliteTables): string {
  const t = `"${tables.transitions}"`;
  const { key, ticket } = uniqueIndexes(tables);
  return `SELECT count(*) AS n FROM ${t} AS r NOT INDEXED
    WHERE NOT EXISTS (SELECT 1 FROM ${t} AS k INDEXED BY "${key}" WHERE k.key = r.key AND k.rowid = r.rowid)
       OR NOT EXISTS (SELECT 1 FROM ${t} AS w INDEXED BY "${keyWitnessIndex(tables)}" WHERE w.key = r.key AND w.rowid = r.rowid)
       OR (r.ticket_key IS NOT NULL AND NOT EXISTS
            (SELECT 1 FROM ${t} AS c INDEXED BY "${ticket}" WHERE c.ticket_key = r.ticket_key AND c.rowid = r.rowid))`;
}

/**
 * Fail closed when an index of the key or the ticket index of the transitions table disagrees with
 * the table.
 *
 * The create path trusts these indexes to say a call never ran: an entry whose bits were flipped
 * (on disk, in a bad copy) hides its record from the lookup, and SQLite's `quick_check` does not
 * see it. The check reads the whole table once and seeks each index per row, inside one read
 * transaction (writers in WAL mode go on meanwhile).
 */
export function checkTransitionIndexes(db: SqliteHandle, tables: SqliteTables, location: string): void {
  const row = db.prepare(indexCheckSql(tables)).get() as { n?: unknown } | undefined;
  const hidden = Number(row?.n ?? Number.NaN);
  if (hidden === 0) return;
  throw new LedgerStorageCorruptError(
    location,
    `${hidden} record(s) of \`${tables.transitions}\` cannot be found through the key or ticket index: an index is damaged, and a lookup would take those records for absent (run \`hyphae doctor --deep\`; restore the file from a backup or rebuild its indexes with \`REINDEX\`)`,
  );
}
