/**
 * SQLite ledger storage (`hyphae/sqlite`): the embedded default, safe across processes on one host.
 *
 * @module
 */
import { resolve } from 'node:path';
import { InvalidOptionError, LedgerStorageCorruptError, LedgerStorageUnavailableError } from '../errors.js';
import { fileOutlivesProcess } from './durability.js';
import type { CreateResult, LedgerIdentity, LedgerStorage, ListPage, ListQuery } from './ledger-storage.js';
import { createdResult, decodeCursor, encodeCursor, encodeRecord, listLimit } from './record-codec.js';
import { createInTransaction } from './sqlite/create-in-transaction.js';
import { mapSqliteError } from './sqlite/map-sqlite-error.js';
import { isTransientFile, openSqliteConnection, type SqliteConnection } from './sqlite/open-connection.js';
import { readLedgerCreatedAt, readLedgerId, sqliteTables } from './sqlite/schema.js';
import type { SqliteLocation, SqliteTableSettings } from './sqlite/sqlite-database.js';
import { checkDriverName } from './sqlite/sqlite-driver.js';
import { checkSqliteArguments } from './sqlite/sqlite-source.js';
import { decodeLookup, decodeTransitionRow, listWhere, updateParams } from './sqlite/transition-rows.js';

export {
  createSqliteReceiptSink,
  SQLITE_RECEIPTS_SCHEMA_VERSION,
  type SqliteReceiptSink,
  type SqliteReceiptSinkOptions,
  type SqliteReceiptSinkSettings,
} from './sqlite/receipts.js';
export type {
  AnySqliteDatabase,
  NodeSqliteDatabase,
  SqliteDatabase,
  SqliteDriverName,
  SqliteRunResult,
  SqliteStatement,
  SqliteTransaction,
} from './sqlite/sqlite-database.js';
export {
  createSqliteSnapshotStorage,
  SQLITE_SNAPSHOT_SCHEMA_VERSION,
  type SqliteSnapshotStorage,
  type SqliteSnapshotStorageOptions,
  type SqliteSnapshotStorageSettings,
} from './sqlite-snapshots.js';

/** Where the store lives: a file the driver opens, or a database the caller owns. */
export type SqliteStorageOptions = SqliteLocation;

/** Tuning of a SQLite store. */
export interface SqliteStorageSettings extends SqliteTableSettings {
  /**
   * `FULL` (default) makes every commit survive power loss, which a `maybe_crossed` mark needs.
   * `NORMAL` survives a process crash but may lose the last commits on power loss.
   */
  readonly synchronous?: 'FULL' | 'NORMAL';
  /**
   * `true` (default) creates the file and schema when absent. `false` opens only a ledger that
   * exists: a missing file, or one without the schema, fails closed as `LedgerStorageCorruptError`
   * instead of starting empty (use it wherever the ledger is known to have been created).
   */
  readonly create?: boolean;
}

/** A {@link LedgerStorage} backed by SQLite. */
export interface SqliteStorage extends LedgerStorage {
  /** Create the tables when absent and check the schema version; runs before the first operation anyway. */
  ensureSchema(): Promise<void>;
  /** The database file (absolute) or the caller's database name, as named in errors. */
  readonly location: string;
  /** The id written when the ledger was created (null for a ledger created before ids were written). */
  ledgerId(): Promise<string | null>;
}

function resolveSource(options: SqliteStorageOptions): { location: string; transient: boolean } {
  if ('database' in options) {
    const db = options.database as { name?: unknown; memory?: unknown; location?: unknown };
    if (typeof db.location === 'function') {
      const file = (options.database as { location(): string | null }).location();
      return { location: file ?? ':memory:', transient: file === null || isTransientFile(file) };
    }
    const name = typeof db.name === 'string' ? db.name : '';
    return { location: name === '' ? 'sqlite database' : name, transient: db.memory === true };
  }
  const transient = isTransientFile(options.path);
  return { location: transient ? ':memory:' : resolve(options.path), transient };
}

function checkSettings(settings: SqliteStorageSettings): {
  synchronous: 'FULL' | 'NORMAL';
  busyTimeoutMs: number;
  create: boolean;
} {
  const { synchronous = 'FULL', busyTimeoutMs = 5000, create = true } = settings;
  if (typeof create !== 'boolean')
    throw new InvalidOptionError('create', `SQLite \`create\` must be a boolean, got \`${String(create)}\``);
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
    throw new InvalidOptionError(
      'synchronous',
      `SQLite \`synchronous\` must be \`FULL\` or \`NORMAL\`, got \`${String(synchronous)}\``,
    );
  }
  if (!Number.isInteger(busyTimeoutMs) || busyTimeoutMs < 0) {
    throw new InvalidOptionError(
      'busyTimeoutMs',
      `SQLite \`busyTimeoutMs\` must be a non-negative integer, got \`${busyTimeoutMs}\``,
    );
  }
  return { synchronous, busyTimeoutMs, create };
}

/**
 * Create a SQLite ledger store.
 *
 * With `path`, the driver is loaded on first use (`node:sqlite` where the runtime has it, else
 * `better-sqlite3`; `driver` chooses), the parent directory is created and the connection runs in
 * WAL mode; `close()` closes it. With `database`, the caller's connection is used (its
 * `synchronous` and `busy_timeout` are set, its journal mode is left alone) and never closed.
 * Creates run under `BEGIN IMMEDIATE`; updates are a compare-and-set on the version column. Both
 * drivers read and write the same file format.
 *
 * @param options `{ path, driver? }` of the database file, or `{ database }`: a better-sqlite3
 *   `Database` or a node:sqlite `DatabaseSync`.
 * @example
 * import { createLedger } from 'hyphae';
 * import { createSqliteStorage } from 'hyphae/sqlite';
 *
 * const storage = createSqliteStorage({ path: '.hyphae/ledger.db' });
 * const ledger = createLedger({ storage, agentId: 'payment-agent', policyVersion: '2026.07.1' });
 */
export function createSqliteStorage(
  options: SqliteStorageOptions,
  settings: SqliteStorageSettings = {},
): SqliteStorage {
  checkSqliteArguments('createSqliteStorage', options, settings);
  const { location, transient } = resolveSource(options);
  const plan = {
    source:
      'database' in options
        ? { database: options.database }
        : { file: transient ? ':memory:' : location, driver: checkDriverName(options.driver) },
    tables: sqliteTables(settings.tablePrefix ?? 'hyphae_'),
    ...checkSettings(settings),
    location,
  };
  let connecting: Promise<SqliteConnection> | null = null;
  let closing: Promise<void> | null = null;

  function connect(): Promise<SqliteConnection> {
    // A failed open is forgotten so the next operation tries again (a busy lock may have cleared).
    connecting ??= openSqliteConnection(plan).catch((error: unknown) => {
      connecting = null;
      throw error;
    });
    return connecting;
  }

  function closedError(operation: string, what: string): LedgerStorageUnavailableError {
    return new LedgerStorageUnavailableError(operation, {
      cause: new Error(`SQLite ${what} \`${location}\` is closed`),
    });
  }

  async function run<T>(operation: string, body: (connection: SqliteConnection) => T): Promise<T> {
    if (closing !== null) throw closedError(operation, 'ledger storage');
    const connection = await connect();
    if (closing !== null) throw closedError(operation, 'ledger storage');
    if (!connection.db.isOpen()) throw closedError(operation, 'database');
    try {
      return body(connection);
    } catch (error) {
      throw mapSqliteError(error, operation, location);
    }
  }

  // One create function per connection, made once (it keeps its transaction statements prepared).
  const creates = new WeakMap<SqliteConnection, ReturnType<typeof createInTransaction>>();
  function createFor(connection: SqliteConnection) {
    let create = creates.get(connection);
    if (create === undefined) {
      create = createInTransaction(connection, location);
      creates.set(connection, create);
    }
    return create;
  }

  return {
    // A file under the temp directory survives the process but not the next reboot or cleaner.
    capabilities: Object.freeze({
      name: 'sqlite',
      crossProcess: !transient,
      durable: !transient && fileOutlivesProcess(location),
    }),
    location,

    async ensureSchema() {
      await run('ensureSchema', () => undefined);
    },

    async ledgerId() {
      return run('ledgerId', ({ db }) => readLedgerId(db, plan.tables));
    },

    async identity(): Promise<LedgerIdentity> {
      return run('identity', ({ db }) => {
        const ledgerId = readLedgerId(db, plan.tables);
        if (ledgerId === null)
          throw new LedgerStorageCorruptError(location, 'it holds a ledger schema without a ledger id');
        return { ledgerId, createdAt: readLedgerCreatedAt(db, plan.tables) ?? 0 };
      });
    },

    async get(key) {
      return run('get', ({ statements }) => decodeLookup(statements.selectByKey.get(key), 'key', key, location));
    },

    async create(record) {
      const doc = encodeRecord(record);
      return run('create', (connection): CreateResult => {
        const existing = createFor(connection)(record, doc);
        if (existing !== null) return { created: false, ...existing };
        return createdResult(doc, `${location}#${record.key}`);
      });
    },

    async update(key, expectedVersion, next) {
      if (next.key !== key) {
        throw new RangeError(`Record key \`${next.key}\` does not match the updated key \`${key}\``);
      }
      const doc = encodeRecord(next);
      // One statement is atomic: of two writers holding the same version, the second matches no row.
      return run('update', ({ statements }) => {
        return Number(statements.update.run(...updateParams(key, expectedVersion, next, doc)).changes) === 1;
      });
    },

    async findByTicket(ticketKey) {
      return run('findByTicket', ({ statements }) =>
        decodeLookup(statements.selectByTicket.get(ticketKey), 'ticket', ticketKey, location),
      );
    },

    async list(query: ListQuery = {}) {
      return run('list', ({ statements }): ListPage => {
        const limit = listLimit(query);
        const { where, params } = listWhere(query, query.cursor === undefined ? null : decodeCursor(query.cursor));
        const rows = statements.list(where).all(...params, limit + 1);
        const records = rows.slice(0, limit).map((row) => decodeTransitionRow(row, location));
        const last = records.at(-1);
        return { records, nextCursor: rows.length > limit && last !== undefined ? encodeCursor(last) : null };
      });
    },

    close() {
      closing ??= (async () => {
        const pending = connecting;
        connecting = null;
        const connection = pending === null ? null : await pending.catch(() => null);
        if (connection === null || !connection.owned) return;
        try {
          connection.db.close();
        } catch (error) {
          throw mapSqliteError(error, 'close', location);
        }
      })();
      return closing;
    },
  };
}
