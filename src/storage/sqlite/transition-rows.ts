/**
 * Prepared statements over the transitions table, and the row ⇄ record mapping.
 */
import { LedgerStorageCorruptError } from '../../errors.js';
import type { TransitionRecord } from '../../records/transition-record.js';
import type { ListQuery } from '../ledger-storage.js';
import { decodeRecord, type ListPosition, listOutcomes } from '../record-codec.js';
import { uniqueIndexes } from './check-indexes.js';
import { keyWitnessIndex, type SqliteTables } from './schema.js';
import type { SqliteStatement } from './sqlite-database.js';
import type { SqliteHandle } from './sqlite-handle.js';

const COLUMNS = 'key, ticket_key, version, doc';

/** The statements one connection prepares once and reuses. */
export interface TransitionStatements {
  /** The lookup by key, through the table's `UNIQUE` key index. */
  readonly selectByKey: SqliteStatement;
  /** The same lookup through the key's second index: the create path's other witness of the key. */
  readonly selectByKeyWitness: SqliteStatement;
  readonly selectByTicket: SqliteStatement;
  readonly insert: SqliteStatement;
  readonly update: SqliteStatement;
  /** The list statement for a filter shape, prepared on first use. */
  list(shape: string): SqliteStatement;
}

/** Prepare the statements of one connection (the schema must exist). */
export function prepareTransitionStatements(db: SqliteHandle, tables: SqliteTables): TransitionStatements {
  const t = `"${tables.transitions}"`;
  const listCache = new Map<string, SqliteStatement>();
  // Each key lookup names its index, so SQLite can never answer both from the same b-tree.
  const { key } = uniqueIndexes(tables);
  return {
    selectByKey: db.prepare(`SELECT ${COLUMNS} FROM ${t} INDEXED BY "${key}" WHERE key = ?`),
    selectByKeyWitness: db.prepare(`SELECT ${COLUMNS} FROM ${t} INDEXED BY "${keyWitnessIndex(tables)}" WHERE key = ?`),
    selectByTicket: db.prepare(`SELECT ${COLUMNS} FROM ${t} WHERE ticket_key = ?`),
    insert: db.prepare(
      `INSERT INTO ${t} (key, ticket_key, tool, kind, outcome, updated_at, version, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    // ticket_key is deliberately absent: the index entry stays with the record that claimed it.
    update: db.prepare(
      `UPDATE ${t} SET tool = ?, kind = ?, outcome = ?, updated_at = ?, version = ?, doc = ? WHERE key = ? AND version = ?`,
    ),
    list(where) {
      let statement = listCache.get(where);
      if (statement === undefined) {
        statement = db.prepare(`SELECT ${COLUMNS} FROM ${t}${where} ORDER BY updated_at DESC, key DESC LIMIT ?`);
        listCache.set(where, statement);
      }
      return statement;
    },
  };
}

/** The `WHERE` clause (a small, bounded set of shapes) and parameters of a list query. */
export function listWhere(query: ListQuery, after: ListPosition | null): { where: string; params: unknown[] } {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (clause: string, ...values: unknown[]): void => {
    clauses.push(clause);
    params.push(...values);
  };
  const outcomes = listOutcomes(query);
  // One JSON parameter keeps the statement shape independent of how many outcomes are asked for.
  if (outcomes.length > 0) add('outcome IN (SELECT value FROM json_each(?))', JSON.stringify(outcomes));
  if (query.tool !== undefined) add('tool = ?', query.tool);
  if (query.kind !== undefined) add('kind = ?', query.kind);
  if (query.updatedFrom !== undefined) add('updated_at >= ?', query.updatedFrom);
  if (query.updatedTo !== undefined) add('updated_at < ?', query.updatedTo);
  if (after !== null) {
    add('(updated_at < ? OR (updated_at = ? AND key < ?))', after.updatedAt, after.updatedAt, after.key);
  }
  return { where: clauses.length === 0 ? '' : ` WHERE ${clauses.join(' AND ')}`, params };
}

/** The parameters of the insert statement. */
export function insertParams(record: TransitionRecord, doc: string): unknown[] {
  return [
    record.key,
    record.ticketKey,
    record.tool,
    record.kind,
    record.outcome,
    record.updatedAt,
    record.version,
    doc,
  ];
}

/** The parameters of the compare-and-set update statement. */
export function updateParams(key: string, expectedVersion: number, next: TransitionRecord, doc: string): unknown[] {
  return [next.tool, next.kind, next.outcome, next.updatedAt, next.version, doc, key, expectedVersion];
}

interface TransitionRow {
  readonly key: string;
  readonly ticket_key: string | null;
  readonly version: number;
  readonly doc: string;
}

function isTransitionRow(row: unknown): row is TransitionRow {
  const r = row as Partial<Record<keyof TransitionRow, unknown>> | null;
  return (
    typeof r === 'object' &&
    r !== null &&
    typeof r.key === 'string' &&
    (r.ticket_key === null || typeof r.ticket_key === 'string') &&
    typeof r.version === 'number' &&
    typeof r.doc === 'string'
  );
}

/**
 * The record stored in a row; fails closed when the row and its document disagree.
 *
 * The `ticket_key` column is authoritative: updates never change it, whatever `ticketKey` the
 * written document carried.
 */
export function decodeTransitionRow(row: unknown, location: string): TransitionRecord {
  if (!isTransitionRow(row)) throw new LedgerStorageCorruptError(location, 'a transitions row has unexpected columns');
  const where = `${location}#${row.key}`;
  const record = decodeRecord(row.doc, where);
  if (record.key !== row.key || record.version !== row.version) {
    throw new LedgerStorageCorruptError(where, 'the stored record does not match its row');
  }
  return record.ticketKey === row.ticket_key ? record : { ...record, ticketKey: row.ticket_key };
}

/**
 * The record a lookup by key or by ticket found, or null. A row whose column differs from the value
 * looked up came through a damaged index entry (one pointing at another row) and fails closed.
 */
export function decodeLookup(
  row: unknown,
  by: 'key' | 'ticket',
  value: string,
  location: string,
): TransitionRecord | null {
  if (row === undefined) return null;
  const record = decodeTransitionRow(row, location);
  const found = by === 'key' ? record.key : record.ticketKey;
  if (found !== value) {
    throw new LedgerStorageCorruptError(
      `${location}#${record.key}`,
      `a lookup by ${by} \`${value}\` returned the record of another ${by}: an index is damaged (run \`hyphae doctor --deep\`)`,
    );
  }
  return record;
}
