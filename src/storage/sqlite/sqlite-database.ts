/**
 * The small structural slices of the two SQLite connections the driver works with — a
 * better-sqlite3 `Database` and a `node:sqlite` `DatabaseSync` — so a caller's own connection fits
 * and neither library's types (nor Node's) appear in our declarations.
 */

/** The two SQLite drivers: Node's built-in `node:sqlite`, or the `better-sqlite3` package. */
export type SqliteDriverName = 'node:sqlite' | 'better-sqlite3';

/** What running a statement reports. */
export interface SqliteRunResult {
  readonly changes: number | bigint;
}

/** A prepared statement, as better-sqlite3's `Statement` and node:sqlite's `StatementSync` provide it. */
export interface SqliteStatement {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
}

/** A function wrapped in a transaction by {@link SqliteDatabase.transaction}. */
export interface SqliteTransaction<T, A extends unknown[] = []> {
  /** Run inside `BEGIN IMMEDIATE … COMMIT` (a savepoint when a transaction is already open). */
  immediate(...args: A): T;
}

/** A better-sqlite3 `Database`, or anything with the same methods. */
export interface SqliteDatabase {
  /** The file name the connection was opened with (`:memory:` for an in-memory database). */
  readonly name?: string;
  /** True for an in-memory database. */
  readonly memory?: boolean;
  /** False once the connection is closed. */
  readonly open?: boolean;
  /** True while a transaction is open. */
  readonly inTransaction?: boolean;
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  pragma(source: string): unknown;
  transaction<T, A extends unknown[] = []>(fn: (...args: A) => T): SqliteTransaction<T, A>;
  close(): unknown;
}

/** A `node:sqlite` `DatabaseSync` (Node.js 22.13 and later), or anything with the same methods. */
export interface NodeSqliteDatabase {
  /** False once the connection is closed (Node.js 22.15 and later). */
  readonly isOpen?: boolean;
  /** True while a transaction is open (Node.js 22.16 and later). */
  readonly isTransaction?: boolean;
  /** The database file, or null for an in-memory database (Node.js 22.16 and later). */
  location?(dbName?: string): string | null;
  open(): unknown;
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  close(): unknown;
}

/** A connection a caller passes in: either driver's. */
export type AnySqliteDatabase = SqliteDatabase | NodeSqliteDatabase;

/**
 * Where a SQLite store lives: a file it opens (with `driver`, default `node:sqlite` where the
 * runtime has it, else `better-sqlite3`), or a database the caller owns (either driver's), which the
 * store never closes. The ledger, its receipt sink and the snapshot store take the same shape.
 */
export type SqliteLocation =
  | { readonly path: string; readonly driver?: SqliteDriverName }
  | { readonly database: AnySqliteDatabase };

/** The settings every SQLite store takes. */
export interface SqliteTableSettings {
  /** Prefix of the table names (and of the `meta` table they share); letters, digits and underscores. Default `hyphae_`. */
  readonly tablePrefix?: string;
  /** How long a write waits for another connection's lock before failing. Default 5000. */
  readonly busyTimeoutMs?: number;
}
