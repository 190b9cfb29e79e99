/**
 * PostgreSQL ledger storage (`hyphae/postgres`): `INSERT … ON CONFLICT` and `UPDATE … WHERE version`.
 *
 * @module
 */
import { randomUUID } from 'node:crypto';
import { InvalidOptionError, LedgerStorageCorruptError, LedgerStorageUnavailableError } from '../errors.js';
import { checkDriverArguments } from '../invalid-argument.js';
import type { LedgerIdentity, LedgerStorage, StorageCapabilities } from './ledger-storage.js';
import type { PostgresConnectionOptions, PostgresStorageSettings } from './postgres/options.js';
import { borrowedPool, ownedPool, type PgConnection, type PgPoolLike, toStorageError } from './postgres/pool.js';
import {
  createStatement,
  listStatement,
  ROW_COLUMNS,
  rowRecord,
  storedRow,
  updateStatement,
} from './postgres/queries.js';
import { droppedTableError, migrationError, migrationSql, tableNames } from './postgres/schema.js';
import { createdResult, encodeCursor, encodeRecord } from './record-codec.js';

export type { PostgresConnectionOptions, PostgresStorageSettings } from './postgres/options.js';
export type { PgPoolLike, PgQueryResultLike } from './postgres/pool.js';
export {
  createPostgresReceiptSink,
  POSTGRES_RECEIPTS_SCHEMA_VERSION,
  type PostgresReceiptSink,
} from './postgres/receipts.js';

/** Ledger storage backed by PostgreSQL. */
export interface PostgresStorage extends LedgerStorage {
  /**
   * Create the schema, tables and indexes when missing; idempotent and safe when processes race.
   * Operations run it on first use; call it at deploy time to fail early. A store written by a
   * newer version of hyphae is refused with `LedgerStorageCorruptError`.
   */
  ensureSchema(): Promise<void>;
  /** The ledger id in the meta table: met, or written by the migration when the store held none. */
  identity(): Promise<LedgerIdentity>;
}

const CAPABILITIES: StorageCapabilities = Object.freeze({ name: 'postgres', crossProcess: true, durable: true });

/** How often `create` re-reads when the row that blocked its insert was not yet visible. */
const CREATE_ATTEMPTS = 5;

const NEEDS =
  'The PostgreSQL ledger storage needs a `pool` (a `pg.Pool`, or anything with `query(text, values)` and `end()`) or a `connectionString`';

/** The connection an option names, checked before anything is sent through it. */
function connectionOf(connection: PostgresConnectionOptions): PgConnection {
  if (typeof connection !== 'object' || connection === null) throw new InvalidOptionError('connection', NEEDS);
  if ('pool' in connection) {
    const pool = connection.pool as Partial<PgPoolLike> | null;
    if (typeof pool?.query !== 'function' || typeof pool.end !== 'function') {
      throw new InvalidOptionError('pool', `${NEEDS}; its \`pool\` has no \`query\` or \`end\``);
    }
    return borrowedPool(connection.pool);
  }
  const { connectionString } = connection as { connectionString?: unknown };
  if (typeof connectionString !== 'string' || connectionString === '')
    throw new InvalidOptionError('connectionString', NEEDS);
  return ownedPool(connectionString);
}

/**
 * Create a ledger storage on PostgreSQL; nothing connects until the first operation.
 *
 * @example
 * import pg from 'pg';
 * import { createPostgresStorage } from 'hyphae/postgres';
 *
 * const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
 * const storage = createPostgresStorage({ pool }, { schema: 'agents', tablePrefix: 'hyphae_' });
 * await storage.ensureSchema(); // optional: the first operation runs it too
 * const ledger = createLedger({ storage, agentId: 'payment-agent', policyVersion: '1' });
 */
export function createPostgresStorage(
  connection: PostgresConnectionOptions,
  settings: PostgresStorageSettings = {},
): PostgresStorage {
  checkDriverArguments('createPostgresStorage', connection, settings);
  const schema = settings.schema ?? 'public';
  const tablePrefix = settings.tablePrefix ?? 'hyphae_';
  const names = tableNames(schema, tablePrefix);
  const source = connectionOf(connection);
  const locationOf = (key: string): string => `postgres:${names.label}transitions#${key}`;
  let migrated: Promise<void> | null = null;
  const init = { ledgerId: randomUUID(), createdAt: Date.now(), create: settings.create ?? true };

  async function migrate(operation: string): Promise<void> {
    const pool = await source.pool(operation);
    try {
      await pool.query(migrationSql(names, schema, tablePrefix, init));
    } catch (error) {
      throw toStorageError(operation, migrationError(names, error));
    }
  }

  /** Migrate once per storage; a failed attempt is forgotten so the next operation tries again. */
  function ensureSchemaFor(operation: string): Promise<void> {
    migrated ??= migrate(operation).catch((error: unknown) => {
      migrated = null;
      throw error;
    });
    return migrated;
  }

  /** Run `body` with a pool on a migrated schema, translating every failure into a storage error. */
  async function withPool<T>(operation: string, body: (pool: PgPoolLike) => Promise<T>): Promise<T> {
    await ensureSchemaFor(operation);
    const pool = await source.pool(operation);
    try {
      return await body(pool);
    } catch (error) {
      // The migration ran, so a table that is now missing was dropped under the store.
      throw toStorageError(operation, droppedTableError(names, error));
    }
  }

  return {
    capabilities: CAPABILITIES,

    ensureSchema() {
      return ensureSchemaFor('ensureSchema');
    },

    identity() {
      return withPool('identity', async (pool) => {
        const { rows } = await pool.query(
          `SELECT name, value FROM ${names.meta} WHERE name IN ('ledger_id', 'ledger_created_at')`,
        );
        const value = (name: string): unknown => rows.find((row) => (row as { name?: unknown }).name === name);
        const id = (value('ledger_id') as { value?: unknown } | undefined)?.value;
        const at = (value('ledger_created_at') as { value?: unknown } | undefined)?.value;
        if (typeof id !== 'string') {
          throw new LedgerStorageCorruptError(`postgres:${names.label}meta`, 'the ledger id row is missing');
        }
        return { ledgerId: id, createdAt: Number(at) };
      });
    },

    async get(key) {
      return withPool('get', async (pool) => {
        const { rows } = await pool.query(`SELECT ${ROW_COLUMNS} FROM ${names.transitions} WHERE key = $1`, [key]);
        return rows[0] === undefined ? null : rowRecord(storedRow(rows[0]), locationOf(key));
      });
    },

    async create(record) {
      const doc = encodeRecord(record);
      // Built before any I/O so an unstorable record is a RangeError, not an unavailable store.
      const statement = createStatement(names, record, doc);
      return withPool('create', async (pool) => {
        for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt += 1) {
          const { rows } = await pool.query(statement.text, statement.values);
          const found = rows.map((row) => ({ status: (row as { status?: unknown }).status, row }));
          if (found.some((entry) => entry.status === 'created')) {
            return createdResult(doc, locationOf(record.key));
          }
          for (const conflict of ['key', 'ticket'] as const) {
            const entry = found.find((candidate) => candidate.status === conflict);
            if (entry !== undefined) {
              return { created: false, conflict, record: rowRecord(storedRow(entry.row), locationOf(record.key)) };
            }
          }
        }
        throw new LedgerStorageUnavailableError('create', {
          cause: new Error(
            `The row blocking the insert of \`${record.key}\` stayed invisible after ${CREATE_ATTEMPTS} attempts`,
          ),
        });
      });
    },

    async update(key, expectedVersion, next) {
      const statement = updateStatement(names, key, expectedVersion, next, encodeRecord(next));
      return withPool('update', async (pool) => {
        const { rowCount } = await pool.query(statement.text, statement.values);
        return rowCount === 1;
      });
    },

    async findByTicket(ticketKey) {
      return withPool('findByTicket', async (pool) => {
        const { rows } = await pool.query(`SELECT ${ROW_COLUMNS} FROM ${names.transitions} WHERE ticket_key = $1`, [
          ticketKey,
        ]);
        if (rows[0] === undefined) return null;
        const row = storedRow(rows[0]);
        return rowRecord(row, locationOf(row.key));
      });
    },

    async list(query = {}) {
      const statement = listStatement(names, query);
      return withPool('list', async (pool) => {
        const { rows } = await pool.query(statement.text, statement.values);
        const stored = rows.map(storedRow);
        const page = stored.slice(0, statement.limit);
        const last = page.at(-1);
        return {
          records: page.map((row) => rowRecord(row, locationOf(row.key))),
          nextCursor: stored.length > statement.limit && last !== undefined ? encodeCursor(last) : null,
        };
      });
    },

    async close() {
      await source.close();
    },
  };
}
