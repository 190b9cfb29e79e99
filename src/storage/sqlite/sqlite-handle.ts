/**
 * One interface over both SQLite drivers: statements, `exec`, a `BEGIN IMMEDIATE` transaction and
 * the connection's state. The stores run the same SQL on either, so both read and write one file
 * format.
 */
import type {
  AnySqliteDatabase,
  NodeSqliteDatabase,
  SqliteDatabase,
  SqliteDriverName,
  SqliteStatement,
} from './sqlite-database.js';

/** A connection of either driver, as the stores use it. */
export interface SqliteHandle {
  readonly driver: SqliteDriverName;
  /** The file (`:memory:` for an in-memory database; undefined when the connection does not say). */
  readonly file: string | undefined;
  prepare(source: string): SqliteStatement;
  exec(source: string): void;
  /** The first column of a pragma's first row (`PRAGMA page_count` → 3). */
  pragmaValue(name: string): unknown;
  /**
   * Run `fn` inside `BEGIN IMMEDIATE … COMMIT` (a savepoint when a transaction is already open),
   * rolled back when it throws. `fn` must be synchronous: the write lock is held while it runs.
   */
  immediate<T>(fn: () => T): T;
  isOpen(): boolean;
  close(): void;
}

function isNodeSqlite(db: AnySqliteDatabase): db is NodeSqliteDatabase {
  return typeof (db as { open?: unknown }).open === 'function';
}

/** The handle of a connection of either driver (told apart by shape: node:sqlite's `open` is a method). */
export function sqliteHandleOf(db: AnySqliteDatabase): SqliteHandle {
  if (isNodeSqlite(db)) {
    const file = typeof db.location === 'function' ? (db.location() ?? ':memory:') : undefined;
    return createHandle(db, 'node:sqlite', file, {
      isOpen: () => db.isOpen !== false,
      inTransaction: () => db.isTransaction,
    });
  }
  const better: SqliteDatabase = db;
  const file = better.memory === true ? ':memory:' : better.name;
  return createHandle(better, 'better-sqlite3', file, {
    isOpen: () => better.open !== false,
    inTransaction: () => better.inTransaction,
  });
}

interface Probes {
  isOpen(): boolean;
  /** Undefined when the connection cannot say (node:sqlite before 22.16). */
  inTransaction(): boolean | undefined;
}

type Raw = Pick<SqliteDatabase, 'prepare' | 'exec' | 'close'>;

function createHandle(db: Raw, driver: SqliteDriverName, file: string | undefined, probes: Probes): SqliteHandle {
  const cached = new Map<string, SqliteStatement>();
  // Transaction control statements are prepared once: a claim opens one transaction per call.
  const control = (source: string): void => {
    let statement = cached.get(source);
    if (statement === undefined) {
      statement = db.prepare(source);
      cached.set(source, statement);
    }
    statement.run();
  };
  const quietly = (source: string): void => {
    try {
      control(source);
    } catch {
      // The transaction is already gone (SQLite rolls back on some errors); the first error matters.
    }
  };
  return {
    driver,
    file,
    prepare: (source) => db.prepare(source),
    exec(source) {
      db.exec(source);
    },
    pragmaValue(name) {
      const row = db.prepare(`PRAGMA ${name}`).get() as Record<string, unknown> | undefined;
      return row === undefined ? undefined : Object.values(row)[0];
    },
    immediate<T>(fn: () => T): T {
      // Inside the caller's own transaction, a savepoint: undone alone, the caller's work kept.
      const nested = probes.inTransaction() === true;
      control(nested ? 'SAVEPOINT hyphae_immediate' : 'BEGIN IMMEDIATE');
      try {
        const result = fn();
        control(nested ? 'RELEASE hyphae_immediate' : 'COMMIT');
        return result;
      } catch (error) {
        if (nested) {
          quietly('ROLLBACK TO hyphae_immediate');
          quietly('RELEASE hyphae_immediate');
        } else if (probes.inTransaction() !== false) {
          // Also reached when COMMIT itself fails (busy in rollback-journal mode): nothing was written.
          quietly('ROLLBACK');
        }
        throw error;
      }
    },
    isOpen: () => probes.isOpen(),
    close() {
      db.close();
    },
  };
}
