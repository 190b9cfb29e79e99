/**
 * A receipt sink in SQLite: table `<prefix>receipts`, one row per receipt, `seq` as primary key.
 *
 * An append is one `BEGIN IMMEDIATE` transaction: check the id is new, read the head, check the
 * receipt extends it, insert. Two writers (in this process or another) cannot fork the chain:
 *
 *   A: BEGIN IMMEDIATE ─► head 41 ─► insert seq 42 ─► COMMIT
 *   B: BEGIN IMMEDIATE waits ─► head 42 ─► its seq 42 does not extend it ─► conflict 'head'
 *   B's writer re-signs as seq 43 and appends again.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { fingerprint } from '../../core/fingerprint.js';
import {
  InvalidOptionError,
  LedgerStorageUnavailableError,
  ReceiptSinkCorruptError,
  ReceiptSinkUnavailableError,
} from '../../errors.js';
import { headOf, type Receipt } from '../receipt.js';
import { decodeReceiptRow } from '../receipt-rows.js';
import type { AppendNextResult, AppendResult, ReceiptSink } from '../receipt-sink.js';
import { metaTableSql, SqliteFileMissingError, SqliteFileRefusedError } from './open-file.js';
import type { SqliteLocation, SqliteStatement, SqliteTableSettings } from './sqlite-database.js';
import { isClosedConnectionError, sqliteErrorCode } from './sqlite-error-code.js';
import type { SqliteHandle } from './sqlite-handle.js';
import { checkSqliteArguments, sqliteSourceOf, sqliteStoreConnection } from './sqlite-source.js';

/** The receipts schema version this code writes and reads (row `receipts_schema_version` of `<prefix>meta`). */
export const SQLITE_RECEIPTS_SCHEMA_VERSION = 1;

/** Where the receipts live: a file the sink opens (with `driver`, as the ledger store), or a database the caller owns. */
export type SqliteReceiptSinkOptions = SqliteLocation;

/** Settings of a SQLite receipt sink: the tables are `<prefix>receipts` and `<prefix>meta`. */
export type SqliteReceiptSinkSettings = SqliteTableSettings;

/** A {@link ReceiptSink} in SQLite. */
export interface SqliteReceiptSink extends ReceiptSink {
  /** Create the table when absent and check the schema version; the first operation runs it anyway. */
  ensureSchema(): Promise<void>;
}

interface Statements {
  readonly byId: SqliteStatement;
  readonly last: SqliteStatement;
  readonly insert: SqliteStatement;
  readonly page: SqliteStatement;
}

const PREFIX = /^[A-Za-z_][A-Za-z0-9_]*$|^$/;
const VERSION_ROW = 'receipts_schema_version';

function mapError(error: unknown, location: string, operation: string): unknown {
  if (error instanceof ReceiptSinkCorruptError || error instanceof ReceiptSinkUnavailableError) return error;
  if (error instanceof SqliteFileRefusedError || error instanceof SqliteFileMissingError)
    return new ReceiptSinkCorruptError(location, error.reason);
  if (error instanceof LedgerStorageUnavailableError || isClosedConnectionError(error)) {
    return new ReceiptSinkUnavailableError(location, `\`${operation}\` failed`, { cause: error });
  }
  const code = sqliteErrorCode(error);
  if (code === undefined) return error;
  if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) {
    return new ReceiptSinkCorruptError(location, `SQLite reports \`${code}\``, { cause: error });
  }
  return new ReceiptSinkUnavailableError(location, `\`${operation}\` failed (\`${code}\`)`, { cause: error });
}

function ensureSchema(db: SqliteHandle, meta: string, table: string, location: string): void {
  const check = (): boolean => {
    const metaExists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(meta);
    if (metaExists === undefined) return false;
    const row = db.prepare(`SELECT value FROM "${meta}" WHERE name = ?`).get(VERSION_ROW) as
      | { value?: unknown }
      | undefined;
    if (row === undefined) return false;
    const version = Number(row.value);
    if (!Number.isInteger(version) || version < 1) {
      throw new ReceiptSinkCorruptError(location, `receipts schema version \`${String(row.value)}\` is not a number`);
    }
    if (version > SQLITE_RECEIPTS_SCHEMA_VERSION) {
      throw new ReceiptSinkCorruptError(
        location,
        `receipts schema version \`${version}\` is newer than this hyphae reads`,
      );
    }
    // A version row without its table means receipts were lost; recreating it would read as an empty chain.
    if (db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table) === undefined) {
      throw new ReceiptSinkCorruptError(location, `table \`${table}\` is missing`);
    }
    return true;
  };
  if (check()) return;
  db.immediate(() => {
    if (check()) return;
    db.exec(metaTableSql(meta));
    db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (
      seq INTEGER PRIMARY KEY NOT NULL,
      receipt_id TEXT NOT NULL UNIQUE,
      hash TEXT NOT NULL,
      doc TEXT NOT NULL
    )`);
    db.prepare(`INSERT INTO "${meta}" (name, value) VALUES (?, ?)`).run(
      VERSION_ROW,
      String(SQLITE_RECEIPTS_SCHEMA_VERSION),
    );
  });
}

/**
 * Create a receipt sink in a SQLite database (the ledger's file, or another).
 *
 * @example
 * import { createSqliteReceiptSink } from 'hyphae/sqlite';
 * const sink = createSqliteReceiptSink({ path: '.hyphae/ledger.db' });
 */
export function createSqliteReceiptSink(
  options: SqliteReceiptSinkOptions,
  settings: SqliteReceiptSinkSettings = {},
): SqliteReceiptSink {
  checkSqliteArguments('createSqliteReceiptSink', options, settings);
  const prefix = settings.tablePrefix ?? 'hyphae_';
  if (!PREFIX.test(prefix)) {
    throw new InvalidOptionError(
      'tablePrefix',
      `Table prefix \`${prefix}\` must be letters, digits and underscores, not starting with a digit`,
    );
  }
  const busyTimeoutMs = settings.busyTimeoutMs ?? 5000;
  const table = `${prefix}receipts`;
  const source = sqliteSourceOf(options);
  const { file } = source;
  const name = source.adopted === undefined ? file : source.adopted.file;
  const location = `sqlite:${name === undefined || name === '' ? 'database' : name}#${table}`;
  const t = `"${table}"`;
  const connection = sqliteStoreConnection(source, {
    busyTimeoutMs,
    // A receipt acknowledged to the ledger must survive power loss, as a ledger write does.
    synchronous: 'FULL',
    metaTable: `${prefix}meta`,
    location,
    prepare(db): Statements {
      ensureSchema(db, `${prefix}meta`, table, location);
      return {
        byId: db.prepare(`SELECT 1 FROM ${t} WHERE receipt_id = ?`),
        last: db.prepare(`SELECT seq, hash, doc FROM ${t} ORDER BY seq DESC LIMIT 1`),
        insert: db.prepare(`INSERT INTO ${t} (seq, receipt_id, hash, doc) VALUES (?, ?, ?, ?)`),
        page: db.prepare(`SELECT seq, hash, doc FROM ${t} WHERE seq > ? ORDER BY seq LIMIT ?`),
      };
    },
    mapError: (error) => mapError(error, location, 'open'),
  });
  let closed = false;

  async function run<T>(operation: string, body: (db: SqliteHandle, statements: Statements) => T): Promise<T> {
    if (closed) throw new ReceiptSinkUnavailableError(location, 'the sink is closed');
    return connection.run(body, (error) => mapError(error, location, operation));
  }

  const lastOf = (statements: Statements): Receipt | null => {
    const row = statements.last.get();
    return row === undefined ? null : decodeReceiptRow(row, location);
  };

  return {
    location,
    async ensureSchema() {
      await run('ensureSchema', () => undefined);
    },
    append(receipt) {
      const doc = canonicalJson(receipt);
      const hash = fingerprint(receipt);
      return run('append', (db, statements) =>
        db.immediate((): AppendResult => {
          if (statements.byId.get(receipt.receiptId) !== undefined) return { appended: false, conflict: 'duplicate' };
          const last = lastOf(statements);
          const head = headOf(last);
          if (receipt.seq !== head.seq + 1 || receipt.prev !== head.hash) {
            return { appended: false, conflict: 'head', last };
          }
          statements.insert.run(receipt.seq, receipt.receiptId, hash, doc);
          return { appended: true };
        }),
      );
    },
    appendNext(seal) {
      return run('append', (db, statements) =>
        db.immediate((): AppendNextResult => {
          // Sealed under the write lock: no other connection can move the head meanwhile.
          const receipt = seal(lastOf(statements));
          if (statements.byId.get(receipt.receiptId) !== undefined) return { appended: false, conflict: 'duplicate' };
          statements.insert.run(receipt.seq, receipt.receiptId, fingerprint(receipt), canonicalJson(receipt));
          return { appended: true, receipt };
        }),
      );
    },
    last() {
      return run('last', (_db, statements) => lastOf(statements));
    },
    async *readAll() {
      let after = 0;
      for (;;) {
        const rows = await run('readAll', (_db, statements) => statements.page.all(after, 500));
        for (const row of rows) {
          const receipt = decodeReceiptRow(row, location);
          after = receipt.seq;
          yield receipt;
        }
        if (rows.length < 500) return;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await connection.close();
    },
  };
}
