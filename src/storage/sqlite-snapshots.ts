/**
 * SQLite snapshot storage (`hyphae/sqlite`): the run-snapshot history in one append-only table,
 * next to the ledger's tables (same file, same prefix, same `meta` table, its own version row).
 */
import { GuardError, InvalidOptionError } from '../errors.js';
import {
  type RunSnapshot,
  RunStatus,
  type SnapshotInput,
  type SnapshotStorage,
  SnapshotStorageError,
} from './snapshot-storage.js';
import { metaTableSql } from './sqlite/open-file.js';
import { sqliteTables } from './sqlite/schema.js';
import type { SqliteLocation, SqliteStatement, SqliteTableSettings } from './sqlite/sqlite-database.js';
import { sqliteErrorCode } from './sqlite/sqlite-error-code.js';
import type { SqliteHandle } from './sqlite/sqlite-handle.js';
import { checkSqliteArguments, sqliteSourceOf, sqliteStoreConnection } from './sqlite/sqlite-source.js';

/** The schema version of the snapshot table this code writes and reads. */
export const SQLITE_SNAPSHOT_SCHEMA_VERSION = 1;
const VERSION_ROW = 'snapshots_schema_version';
const STATUSES: ReadonlySet<string> = new Set(Object.values(RunStatus));

/** Where the snapshots live: a file the store opens (with `driver`, as the ledger store), or a database the caller owns. */
export type SqliteSnapshotStorageOptions = SqliteLocation;

/** Tuning of a SQLite snapshot store. */
export interface SqliteSnapshotStorageSettings extends SqliteTableSettings {
  /** Default `FULL`; `NORMAL` may lose the last snapshots on power loss. */
  readonly synchronous?: 'FULL' | 'NORMAL';
}

/** A {@link SnapshotStorage} backed by SQLite. */
export interface SqliteSnapshotStorage extends SnapshotStorage {
  /** Create the table when absent and check the schema version; runs before the first operation anyway. */
  ensureSchema(): Promise<void>;
  readonly location: string;
}

interface Statements {
  readonly nextSeq: SqliteStatement;
  readonly insert: SqliteStatement;
  readonly latest: SqliteStatement;
  readonly history: SqliteStatement;
}

function fail(operation: string, error: unknown, runId?: string): unknown {
  if (error instanceof GuardError) return error;
  const code = sqliteErrorCode(error);
  const reason = code === undefined ? 'SQLite failed' : `SQLite \`${code}\``;
  return new SnapshotStorageError(operation, reason, runId === undefined ? { cause: error } : { cause: error, runId });
}

function ensureSchema(db: SqliteHandle, meta: string, table: string, location: string): void {
  db.exec(metaTableSql(meta));
  const row = db.prepare(`SELECT value FROM "${meta}" WHERE name = ?`).get(VERSION_ROW) as
    | { value?: unknown }
    | undefined;
  if (row !== undefined) {
    const version = Number(row.value);
    if (!Number.isInteger(version) || version < 1 || version > SQLITE_SNAPSHOT_SCHEMA_VERSION) {
      throw new SnapshotStorageError(
        'ensureSchema',
        `\`${location}\` has snapshot schema version \`${String(row.value)}\`, which this version of hyphae cannot read`,
      );
    }
    const exists = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(table);
    if (exists === undefined)
      throw new SnapshotStorageError('ensureSchema', `table \`${table}\` of \`${location}\` is missing`);
    return;
  }
  db.immediate(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS "${table}" (
      run_id TEXT NOT NULL, seq INTEGER NOT NULL, status TEXT NOT NULL, at INTEGER NOT NULL, doc TEXT NOT NULL,
      PRIMARY KEY (run_id, seq))`);
    db.prepare(`INSERT OR IGNORE INTO "${meta}" (name, value) VALUES (?, ?)`).run(
      VERSION_ROW,
      String(SQLITE_SNAPSHOT_SCHEMA_VERSION),
    );
  });
}

function decode(row: unknown, location: string): RunSnapshot {
  const r = row as { run_id?: unknown; seq?: unknown; status?: unknown; at?: unknown; doc?: unknown } | null;
  try {
    const doc = JSON.parse(String(r?.doc)) as { state?: unknown; error?: unknown };
    if (
      typeof r?.run_id !== 'string' ||
      typeof r.seq !== 'number' ||
      typeof r.status !== 'string' ||
      typeof r.at !== 'number'
    ) {
      throw new Error('unexpected columns');
    }
    if (!STATUSES.has(r.status)) throw new Error(`unknown status \`${r.status}\``);
    if (typeof doc.state !== 'object' || doc.state === null || Array.isArray(doc.state)) throw new Error('no state');
    const state = doc.state as RunSnapshot['state'];
    const base: RunSnapshot = {
      runId: r.run_id,
      seq: r.seq,
      status: r.status as RunSnapshot['status'],
      state,
      at: r.at,
    };
    return typeof doc.error === 'string' ? { ...base, error: doc.error } : base;
  } catch (cause) {
    throw new SnapshotStorageError('read', `a snapshot row of \`${location}\` cannot be read`, { cause });
  }
}

/**
 * Create a SQLite snapshot store. With `path`, the driver is loaded on first use (as for
 * `createSqliteStorage`) and the file runs in WAL mode; `close()` closes it. With `database`, the caller's connection is used and never
 * closed. Appends take the next `seq` of the run under `BEGIN IMMEDIATE`.
 *
 * @example
 * import { createRunSnapshots } from 'hyphae';
 * import { createSqliteSnapshotStorage } from 'hyphae/sqlite';
 *
 * const snapshots = createRunSnapshots({ storage: createSqliteSnapshotStorage({ path: '.hyphae/runs.db' }) });
 */
export function createSqliteSnapshotStorage(
  options: SqliteSnapshotStorageOptions,
  settings: SqliteSnapshotStorageSettings = {},
): SqliteSnapshotStorage {
  checkSqliteArguments('createSqliteSnapshotStorage', options, settings);
  const tables = sqliteTables(settings.tablePrefix ?? 'hyphae_');
  const table = `${settings.tablePrefix ?? 'hyphae_'}run_snapshots`;
  const { synchronous = 'FULL', busyTimeoutMs = 5000 } = settings;
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') {
    throw new InvalidOptionError(
      'synchronous',
      `SQLite \`synchronous\` must be \`FULL\` or \`NORMAL\`, got \`${String(synchronous)}\``,
    );
  }
  const source = sqliteSourceOf(options);
  const { file } = source;
  const location = file ?? (source.adopted?.file || 'sqlite database');
  const t = `"${table}"`;
  const connection = sqliteStoreConnection(source, {
    busyTimeoutMs,
    synchronous,
    metaTable: tables.meta,
    location,
    prepare(db): Statements {
      ensureSchema(db, tables.meta, table, location);
      return {
        nextSeq: db.prepare(`SELECT COALESCE(MAX(seq) + 1, 0) AS seq FROM ${t} WHERE run_id = ?`),
        insert: db.prepare(`INSERT INTO ${t} (run_id, seq, status, at, doc) VALUES (?, ?, ?, ?, ?)`),
        latest: db.prepare(`SELECT * FROM ${t} WHERE run_id = ? ORDER BY seq DESC LIMIT 1`),
        history: db.prepare(`SELECT * FROM ${t} WHERE run_id = ? ORDER BY seq ASC`),
      };
    },
    mapError: (error) => fail('open', error),
  });
  let closed = false;

  async function use<T>(
    operation: string,
    runId: string | undefined,
    body: (db: SqliteHandle, s: Statements) => T,
  ): Promise<T> {
    if (closed)
      throw new SnapshotStorageError(
        operation,
        `SQLite snapshot storage \`${location}\` is closed`,
        runId === undefined ? {} : { runId },
      );
    return connection.run(body, (error) => fail(operation, error, runId));
  }

  return {
    location,
    async ensureSchema() {
      await use('ensureSchema', undefined, () => undefined);
    },
    append(runId: string, snapshot: SnapshotInput) {
      const doc = JSON.stringify(
        snapshot.error === undefined ? { state: snapshot.state } : { state: snapshot.state, error: snapshot.error },
      );
      return use('append', runId, (db, s) =>
        db.immediate(() => {
          const { seq } = s.nextSeq.get(runId) as { seq: number };
          s.insert.run(runId, seq, snapshot.status, snapshot.at, doc);
          return decode({ run_id: runId, seq, status: snapshot.status, at: snapshot.at, doc }, location);
        }),
      );
    },
    latest(runId: string) {
      return use('latest', runId, (_db, s) => {
        const row = s.latest.get(runId);
        return row === undefined ? null : decode(row, location);
      });
    },
    history(runId: string) {
      return use('history', runId, (_db, s) => s.history.all(runId).map((row) => decode(row, location)));
    },
    async close() {
      if (closed) return;
      closed = true;
      await connection.close();
    },
  };
}
