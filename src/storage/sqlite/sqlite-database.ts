/**
 * The small structural slice of a better-sqlite3 `Database` the SQLite driver uses, so a caller's
 * own database fits and no better-sqlite3 types appear in our declarations.
 */

/** What running a statement reports. */
export interface SqliteRunResult {
  readonly changes: number;
}

/** A prepared statement, as better-sqlite3's `Statement` provides it. */
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

/** A SQLite connection: a better-sqlite3 `Database`, or anything with the same methods. */
export interface SqliteDatabase {
  /** The file name the connection was opened with (`:memory:` for an in-memory database). */
  readonly name?: string;
  /** True for an in-memory database. */
  readonly memory?: boolean;
  /** False once the connection is closed. */
  readonly open?: boolean;
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  pragma(source: string): unknown;
  transaction<T, A extends unknown[] = []>(fn: (...args: A) => T): SqliteTransaction<T, A>;
  close(): unknown;
}
