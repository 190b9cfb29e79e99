/**
 * The SQLite baseline: the statements the driver runs for one call, executed directly with the
 * driver's library (better-sqlite3, or node:sqlite's `DatabaseSync`) on a table created from the
 * driver's own DDL, with documents of the same size.
 *
 * Mirrors `src/storage/sqlite.ts` and `src/storage/sqlite/transition-rows.ts`:
 *   create = BEGIN IMMEDIATE; SELECT by key (the UNIQUE index, then the key's second index);
 *            SELECT by ticket_key; INSERT; COMMIT
 *            (a replay meets its row at the first SELECT and commits nothing)
 *   update = UPDATE … WHERE key = ? AND version = ?   (autocommit)
 */
import Database from 'better-sqlite3';
import { nodeSqliteModule } from '../../src/storage/sqlite/load-node-sqlite.js';
import type { SqliteStatement } from '../../src/storage/sqlite.js';
import { randomKey } from './random-key.js';
import { parseDoc, splitWrites, type WrittenDoc } from './written-docs.js';

const TABLE = '"hyphae_transitions"';
const COLUMNS = 'key, ticket_key, version, doc';

/** The pragmas the driver sets on a connection it opens. */
export interface SqliteSettings {
  readonly synchronous: 'FULL' | 'NORMAL';
  readonly busyTimeoutMs: number;
}

/**
 * The DDL of the driver's transitions table and its indexes, read from a database it created (with
 * the library that created it: two SQLite libraries in one process must not share a file).
 */
export function readTransitionsDdl(
  file: string,
  driver: 'better-sqlite3' | 'node:sqlite' = 'better-sqlite3',
): string[] {
  const db = driver === 'node:sqlite' ? nodeSqliteConnection(file, 5000) : betterSqlite3Connection(file, 5000);
  try {
    const rows = db
      .prepare(
        `SELECT sql FROM sqlite_master WHERE tbl_name = 'hyphae_transitions' AND sql IS NOT NULL ORDER BY type DESC`,
      )
      .all() as { sql: string }[];
    if (rows.length === 0) throw new Error(`No hyphae_transitions table in \`${file}\``);
    return rows.map((row) => row.sql);
  } finally {
    db.close();
  }
}

/** A raw connection and the operation of each case. */
export interface RawSqlite {
  /** The statements of one fresh call that writes `docs`: the first inserted, the rest CAS updates. */
  write(docs: readonly string[]): () => void;
  /** The statements of a replay: the create transaction meeting an existing row holding `doc`. */
  replay(doc: string): () => void;
  close(): void;
}

/** A raw connection of either library, and its own way of running a `BEGIN IMMEDIATE` transaction. */
interface RawConnection {
  prepare(source: string): SqliteStatement;
  exec(source: string): unknown;
  immediate<A extends unknown[]>(fn: (...args: A) => boolean): (...args: A) => boolean;
  close(): void;
}

function betterSqlite3Connection(file: string, busyTimeoutMs: number): RawConnection {
  const db = new Database(file, { timeout: busyTimeoutMs });
  return {
    prepare: (source) => db.prepare(source),
    exec: (source) => db.exec(source),
    immediate(fn) {
      const transaction = db.transaction(fn);
      return (...args) => transaction.immediate(...args);
    },
    close: () => db.close(),
  };
}

function nodeSqliteConnection(file: string, busyTimeoutMs: number): RawConnection {
  const sqlite = nodeSqliteModule();
  if (sqlite === undefined) throw new Error('This runtime has no node:sqlite');
  const db = new sqlite.DatabaseSync(file, { timeout: busyTimeoutMs });
  const begin = db.prepare('BEGIN IMMEDIATE');
  const commit = db.prepare('COMMIT');
  const rollback = db.prepare('ROLLBACK');
  return {
    prepare: (source) => db.prepare(source),
    exec: (source) => db.exec(source),
    immediate(fn) {
      return (...args) => {
        begin.run();
        try {
          const result = fn(...args);
          commit.run();
          return result;
        } catch (error) {
          rollback.run();
          throw error;
        }
      };
    },
    close: () => db.close(),
  };
}

/** Open `file` as the driver would, create the table from `ddl` and prepare the driver's statements. */
export function openRawSqlite(
  file: string,
  ddl: readonly string[],
  settings: SqliteSettings,
  driver: 'better-sqlite3' | 'node:sqlite' = 'better-sqlite3',
): RawSqlite {
  const db =
    driver === 'node:sqlite'
      ? nodeSqliteConnection(file, settings.busyTimeoutMs)
      : betterSqlite3Connection(file, settings.busyTimeoutMs);
  db.exec(`PRAGMA busy_timeout = ${settings.busyTimeoutMs}`);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec(`PRAGMA synchronous = ${settings.synchronous}`);
  for (const statement of ddl) db.exec(statement);

  const selectByKey = db.prepare(
    `SELECT ${COLUMNS} FROM ${TABLE} INDEXED BY "sqlite_autoindex_hyphae_transitions_1" WHERE key = ?`,
  );
  const selectByKeyWitness = db.prepare(
    `SELECT ${COLUMNS} FROM ${TABLE} INDEXED BY "hyphae_transitions_key_witness_idx" WHERE key = ?`,
  );
  const selectByTicket = db.prepare(`SELECT ${COLUMNS} FROM ${TABLE} WHERE ticket_key = ?`);
  const insert = db.prepare(
    `INSERT INTO ${TABLE} (key, ticket_key, tool, kind, outcome, updated_at, version, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const update = db.prepare(
    `UPDATE ${TABLE} SET tool = ?, kind = ?, outcome = ?, updated_at = ?, version = ?, doc = ? WHERE key = ? AND version = ?`,
  );
  const create = db.immediate((key: string, ticketKey: string, write: WrittenDoc): boolean => {
    if (selectByKey.get(key) !== undefined) return false;
    if (selectByKeyWitness.get(key) !== undefined) return false;
    if (selectByTicket.get(ticketKey) !== undefined) return false;
    insert.run(key, ticketKey, write.tool, write.kind, write.outcome, Date.now(), write.version, write.doc);
    return true;
  });

  return {
    write(docs) {
      const { first, rest } = splitWrites(docs);
      return () => {
        const key = randomKey();
        if (!create(key, randomKey(), first)) throw new Error('Raw insert met an existing row');
        let version = first.version;
        for (const write of rest) {
          const changes = update.run(
            write.tool,
            write.kind,
            write.outcome,
            Date.now(),
            write.version,
            write.doc,
            key,
            version,
          ).changes;
          if (Number(changes) !== 1) throw new Error('Raw CAS update lost');
          version = write.version;
        }
      };
    },
    replay(doc) {
      const existing = randomKey();
      const stored = parseDoc(doc);
      create(existing, randomKey(), stored);
      const ticketKey = randomKey();
      return () => {
        if (create(existing, ticketKey, stored)) throw new Error('Raw replay inserted a row');
      };
    },
    close() {
      db.close();
    },
  };
}
