/**
 * The SQL of the PostgreSQL driver's operations, and the parsing of the rows they return.
 */
import { LedgerStorageCorruptError } from '../../errors.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { ListQuery } from '../ledger-storage.js';
import { decodeCursor, decodeRecord, listLimit, listOutcomes } from '../record-codec.js';
import type { TableNames } from './schema.js';

/** A statement and its parameters. */
export interface Statement {
  readonly text: string;
  readonly values: readonly unknown[];
}

/**
 * Insert if absent, and in the same statement read whichever row made it absent.
 *
 * The reads see the statement's snapshot; a row that a concurrent transaction committed while our
 * INSERT waited on it is outside that snapshot, so the statement may find no row at all. The caller
 * then runs it again (a new snapshot sees that row).
 */
export function createStatement(names: TableNames, record: TransitionRecord, doc: string): Statement {
  const t = names.transitions;
  return {
    text: `WITH ins AS (
  INSERT INTO ${t} (key, ticket_key, tool, kind, outcome, updated_at, version, doc)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT DO NOTHING
  RETURNING key
)
SELECT 'created' AS status, NULL::text AS key, NULL::integer AS version, NULL::text AS doc, NULL::text AS ticket_key FROM ins
UNION ALL
SELECT 'key', key, version, doc, ticket_key FROM ${t} WHERE key = $1 AND NOT EXISTS (SELECT 1 FROM ins)
UNION ALL
SELECT 'ticket', key, version, doc, ticket_key FROM ${t}
  WHERE ticket_key = $2 AND key <> $1 AND NOT EXISTS (SELECT 1 FROM ins)`,
    values: [
      record.key,
      record.ticketKey,
      record.tool,
      record.kind,
      record.outcome,
      integerParam('updatedAt', record.updatedAt),
      record.version,
      doc,
    ],
  };
}

/** Compare-and-set on `version`; the ticket column is left alone, so the index entry never moves. */
export function updateStatement(
  names: TableNames,
  key: string,
  expectedVersion: number,
  next: TransitionRecord,
  doc: string,
): Statement {
  return {
    text: `UPDATE ${names.transitions}
SET tool = $3, kind = $4, outcome = $5, updated_at = $6, version = $7, doc = $8
WHERE key = $1 AND version = $2`,
    values: [
      key,
      expectedVersion,
      next.tool,
      next.kind,
      next.outcome,
      integerParam('updatedAt', next.updatedAt),
      next.version,
      doc,
    ],
  };
}

/** One list page plus one row, which only proves that a next page exists. */
export function listStatement(names: TableNames, query: ListQuery): Statement & { readonly limit: number } {
  const limit = listLimit(query);
  const cursor = query.cursor === undefined ? null : decodeCursor(query.cursor);
  const outcomes = listOutcomes(query);
  const values: unknown[] = [];
  const where: string[] = [];
  const param = (value: unknown): string => {
    values.push(value);
    return `$${values.length}`;
  };
  if (outcomes.length > 0) where.push(`outcome = ANY(${param(outcomes)}::text[])`);
  if (query.tool !== undefined) where.push(`tool = ${param(query.tool)}`);
  if (query.kind !== undefined) where.push(`kind = ${param(query.kind)}`);
  // updated_at holds integers, so `>= x` is `>= ceil(x)` and `< x` is `< ceil(x)`.
  if (query.updatedFrom !== undefined) where.push(`updated_at >= ${param(boundParam(query.updatedFrom))}`);
  if (query.updatedTo !== undefined) where.push(`updated_at < ${param(boundParam(query.updatedTo))}`);
  if (cursor !== null) {
    where.push(
      `(updated_at, key) < (${param(boundParam(cursor.updatedAt))}::bigint, ${param(cursor.key)}::text COLLATE "C")`,
    );
  }
  // The text copy of updated_at has a name of its own: ordering by an alias of the column's name
  // would sort the text, bypassing the (updated_at, key) index with a scan and a sort on every page.
  const text = `SELECT key, version, doc, ticket_key, updated_at::text AS updated_at_text FROM ${names.transitions}
${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''}
ORDER BY updated_at DESC, key DESC
LIMIT ${param(limit + 1)}`;
  return { text, values, limit };
}

/** The columns every read selects: a row is checked against the document it stores. */
export const ROW_COLUMNS = 'key, version, doc, ticket_key';

/** A stored row: its record JSON, the key and version columns, and the ticket index entry it holds. */
export interface StoredRow {
  readonly key: string;
  /** The version column; null when the query did not select it. */
  readonly version: number | null;
  readonly doc: string;
  readonly ticketKey: string | null;
  readonly updatedAt: number;
}

/** Read a row the driver's queries return; a row of another shape is a protocol surprise. */
export function storedRow(row: unknown): StoredRow {
  const fields = (row ?? {}) as Record<string, unknown>;
  const { key, version, doc, ticket_key: ticketKey } = fields;
  const updatedAt = fields.updated_at_text ?? fields.updated_at;
  if (typeof doc !== 'string' || (ticketKey !== null && typeof ticketKey !== 'string')) {
    throw new TypeError('Unexpected row from the PostgreSQL ledger table');
  }
  return {
    key: typeof key === 'string' ? key : '',
    version: typeof version === 'number' ? version : null,
    doc,
    ticketKey,
    updatedAt: typeof updatedAt === 'string' || typeof updatedAt === 'number' ? Number(updatedAt) : Number.NaN,
  };
}

/**
 * Decode a stored row; fails closed when the row's key or version column disagrees with its
 * document (an edited row: the CAS and the lookups read the columns, the ledger the document).
 * The `ticket_key` column is authoritative for `ticketKey`: an update never moves the ticket index
 * entry, even when the record it writes names another ticket.
 */
export function rowRecord(row: StoredRow, location: string): TransitionRecord {
  const record = decodeRecord(row.doc, location);
  if (record.key !== row.key || record.version !== row.version) {
    throw new LedgerStorageCorruptError(location, 'the stored record does not match its row (key or version)');
  }
  return { ...record, ticketKey: row.ticketKey };
}

/** An epoch-ms field stored in a bigint column; only safe integers fit. */
function integerParam(field: string, value: number): string {
  if (!Number.isSafeInteger(value)) {
    throw new RangeError(`Field \`${field}\` must be an integer number of epoch milliseconds, got \`${value}\``);
  }
  return String(value);
}

/** A time bound compared with a bigint column, rounded up and clamped to the bigint range. */
function boundParam(value: number): string {
  if (Number.isNaN(value)) throw new RangeError('List time bound must be a number, got `NaN`');
  if (value >= 9.2e18) return '9223372036854775807';
  if (value <= -9.2e18) return '-9223372036854775808';
  return String(Math.ceil(value));
}
