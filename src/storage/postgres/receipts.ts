/**
 * A receipt sink in PostgreSQL: table `<prefix>receipts`, `seq` as primary key, `receipt_id` unique.
 *
 * An append is one statement: insert the receipt only when it extends the head it sees, and do
 * nothing on any unique conflict. Two writers that both saw head 41 race on seq 42:
 *
 *   A: INSERT seq 42 (head 41 ✓) ─► inserted, COMMIT
 *   B: INSERT seq 42 (head 41 ✓) ─► waits on A's row ─► conflict ─► DO NOTHING ─► 0 rows
 *   B: reads: its id is absent ─► conflict 'head' with A's 42; its writer re-signs as seq 43
 *
 * The primary key makes a fork impossible whatever the isolation level; the head check makes a gap
 * or a wrong `prev` impossible.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from '../../core/canonical-json.js';
import { fingerprint } from '../../core/fingerprint.js';
import { InvalidOptionError, ReceiptSinkCorruptError, ReceiptSinkUnavailableError } from '../../errors.js';
import { checkOptions } from '../../invalid-argument.js';
import type { Receipt } from '../receipt.js';
import { decodeReceiptRow } from '../receipt-rows.js';
import type { AppendNextResult, AppendResult, ReceiptSink } from '../receipt-sink.js';
import type { PostgresConnectionOptions, PostgresStorageSettings } from './options.js';
import { borrowedPool, ownedPool, type PgConnection, type PgPoolLike, type PgQueryResultLike } from './pool.js';
import { tableNames } from './schema.js';

/** The receipts schema version this code writes and reads (row `receipts_schema_version` of `<prefix>meta`). */
export const POSTGRES_RECEIPTS_SCHEMA_VERSION = 1;

/** A {@link ReceiptSink} in PostgreSQL. */
export interface PostgresReceiptSink extends ReceiptSink {
  /** Create the schema and table when missing (idempotent, safe when processes race). */
  ensureSchema(): Promise<void>;
}

/** A client checked out of a pool, as `pg.Pool#connect()` hands it out. */
interface PgPooledClient {
  query(text: string, values?: readonly unknown[]): Promise<PgQueryResultLike>;
  release(error?: Error | boolean): void;
}

/** A pool that hands out clients (a `pg.Pool`); a bare `pg.Client` has `connect()` but no `totalCount`. */
function clientsOf(pool: PgPoolLike): (() => Promise<PgPooledClient>) | null {
  const candidate = pool as PgPoolLike & { connect?: unknown; totalCount?: unknown };
  return typeof candidate.connect === 'function' && typeof candidate.totalCount === 'number'
    ? () => (candidate.connect as () => Promise<PgPooledClient>).call(pool)
    : null;
}

/** How often `appendNext` without a client lock retries a lost head. */
const CAS_ATTEMPTS = 100;

/** SQLSTATE the migration raises when the stored receipts schema is newer than this code. */
const SCHEMA_TOO_NEW = 'HY011';

function migrationSql(schema: string, meta: string, receipts: string, lockKey: string): string {
  return `DO $hyphae$
DECLARE
  found text;
BEGIN
  PERFORM pg_advisory_xact_lock(${lockKey});
  IF to_regclass('${meta}') IS NOT NULL THEN
    SELECT value INTO found FROM ${meta} WHERE name = 'receipts_schema_version';
  END IF;
  IF found IS NOT NULL AND (found !~ '^[0-9]{1,9}$' OR found::integer > ${POSTGRES_RECEIPTS_SCHEMA_VERSION}) THEN
    RAISE EXCEPTION 'receipts schema version not readable' USING ERRCODE = '${SCHEMA_TOO_NEW}', DETAIL = found;
  END IF;
  IF found IS NOT NULL THEN
    IF to_regclass('${receipts}') IS NULL THEN
      RAISE EXCEPTION 'receipts table missing' USING ERRCODE = '${SCHEMA_TOO_NEW}', DETAIL = 'table missing';
    END IF;
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = '${schema}') THEN
    CREATE SCHEMA "${schema}";
  END IF;
  CREATE TABLE IF NOT EXISTS ${meta} (name text PRIMARY KEY, value text NOT NULL);
  CREATE TABLE IF NOT EXISTS ${receipts} (
    seq bigint PRIMARY KEY,
    receipt_id text COLLATE "C" NOT NULL UNIQUE,
    hash text NOT NULL,
    doc text NOT NULL
  );
  INSERT INTO ${meta} (name, value) VALUES ('receipts_schema_version', '${POSTGRES_RECEIPTS_SCHEMA_VERSION}')
    ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value;
END
$hyphae$`;
}

/**
 * Create a receipt sink in PostgreSQL; nothing connects until the first operation.
 *
 * @example
 * import { createPostgresReceiptSink } from 'hyphae/postgres';
 * const sink = createPostgresReceiptSink({ pool }, { tablePrefix: 'hyphae_' });
 */
export function createPostgresReceiptSink(
  connection: PostgresConnectionOptions,
  settings: PostgresStorageSettings = {},
): PostgresReceiptSink {
  if (typeof connection !== 'object' || connection === null)
    throw new InvalidOptionError(
      'connection',
      'The PostgreSQL receipt sink needs a `pool` (a `pg.Pool`, or anything with `query(text, values)` and `end()`) or a `connectionString`',
    );
  checkOptions('createPostgresReceiptSink', connection, true, 'connection');
  checkOptions('createPostgresReceiptSink', settings, true, 'settings');
  const schema = settings.schema ?? 'public';
  const prefix = settings.tablePrefix ?? 'hyphae_';
  const names = tableNames(schema, prefix);
  const receipts = `"${schema}"."${prefix}receipts"`;
  const location = `postgres:${names.label}receipts`;
  const lockKey = createHash('sha256')
    .update(`hyphae-receipts:${schema}.${prefix}`)
    .digest()
    .readBigInt64BE(0)
    .toString();
  const source: PgConnection =
    'pool' in connection ? borrowedPool(connection.pool) : ownedPool(connection.connectionString);
  let migrated: Promise<void> | null = null;

  function unavailable(operation: string, error: unknown): Error {
    if (error instanceof ReceiptSinkCorruptError || error instanceof ReceiptSinkUnavailableError) return error;
    return new ReceiptSinkUnavailableError(location, `\`${operation}\` failed`, { cause: error });
  }

  async function migrate(): Promise<void> {
    const pool = await source.pool('ensureSchema');
    try {
      await pool.query(migrationSql(schema, names.meta, receipts, lockKey));
    } catch (error) {
      const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown };
      if (code === SCHEMA_TOO_NEW) {
        throw new ReceiptSinkCorruptError(location, `receipts schema cannot be read (\`${String(detail)}\`)`, {
          cause: error,
        });
      }
      throw error;
    }
  }

  async function withPool<T>(operation: string, body: (pool: PgPoolLike) => Promise<T>): Promise<T> {
    try {
      migrated ??= migrate().catch((error: unknown) => {
        migrated = null;
        throw error;
      });
      await migrated;
      return await body(await source.pool(operation));
    } catch (error) {
      throw unavailable(operation, error);
    }
  }

  // `seq` is bigint, which `pg` hands back as a string; ordering must stay on the column, never on a text alias.
  const selectLast = `SELECT seq, hash, doc FROM ${receipts} ORDER BY seq DESC LIMIT 1`;

  /** Insert `receipt` when it extends the head this statement sees; classify a refusal. */
  async function casAppend(pool: PgPoolLike, receipt: Receipt): Promise<AppendResult> {
    const values = [receipt.seq, receipt.receiptId, fingerprint(receipt), canonicalJson(receipt), receipt.prev];
    const { rowCount } = await pool.query(
      `WITH head AS (SELECT seq, hash FROM ${receipts} ORDER BY seq DESC LIMIT 1)
INSERT INTO ${receipts} (seq, receipt_id, hash, doc)
SELECT $1::bigint, $2, $3, $4
WHERE COALESCE((SELECT seq FROM head), 0) = $1::bigint - 1
  AND (SELECT hash FROM head) IS NOT DISTINCT FROM $5::text
ON CONFLICT DO NOTHING`,
      values,
    );
    if (rowCount === 1) return { appended: true };
    const existing = await pool.query(`SELECT 1 FROM ${receipts} WHERE receipt_id = $1`, [receipt.receiptId]);
    if (existing.rows.length > 0) return { appended: false, conflict: 'duplicate' };
    return { appended: false, conflict: 'head', last: await readLast((text) => pool.query(text)) };
  }

  async function readLast(query: (text: string) => Promise<PgQueryResultLike>): Promise<Receipt | null> {
    const { rows } = await query(selectLast);
    return rows[0] === undefined ? null : decodeReceiptRow(rows[0], location);
  }

  /** `appendNext` on a pool that cannot hand out a client: seal, conditional insert, retry on a lost head. */
  async function appendByCas(pool: PgPoolLike, seal: (last: Receipt | null) => Receipt): Promise<AppendNextResult> {
    let last = await readLast((text) => pool.query(text));
    for (let attempt = 1; attempt <= CAS_ATTEMPTS; attempt++) {
      const receipt = seal(last);
      const result = await casAppend(pool, receipt);
      if (result.appended) return { appended: true, receipt };
      if (result.conflict === 'duplicate') return result;
      last = result.last;
    }
    throw new ReceiptSinkUnavailableError(location, `the append lost the chain head ${CAS_ATTEMPTS} times`);
  }

  return {
    location,
    ensureSchema() {
      return withPool('ensureSchema', async () => undefined);
    },
    append(receipt) {
      return withPool('append', (pool) => casAppend(pool, receipt));
    },
    appendNext(seal) {
      return withPool('append', async (pool): Promise<AppendNextResult> => {
        const connect = clientsOf(pool);
        if (connect === null) return appendByCas(pool, seal);
        // One transaction holding an advisory lock: writers queue (in lock order) instead of racing,
        // and each reads the head after the one before it committed.
        const client = await connect();
        let failed = false;
        try {
          await client.query('BEGIN');
          await client.query(`SELECT pg_advisory_xact_lock(${lockKey})`);
          const receipt = seal(await readLast((text) => client.query(text)));
          const inserted = await client.query(
            `INSERT INTO ${receipts} (seq, receipt_id, hash, doc) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
            [receipt.seq, receipt.receiptId, fingerprint(receipt), canonicalJson(receipt)],
          );
          await client.query('COMMIT');
          // Under the lock only a duplicate id can conflict: the head was read after the last commit.
          return inserted.rowCount === 1 ? { appended: true, receipt } : { appended: false, conflict: 'duplicate' };
        } catch (error) {
          failed = true;
          await client.query('ROLLBACK').catch(() => undefined);
          throw error;
        } finally {
          client.release(failed);
        }
      });
    },
    last() {
      return withPool('last', (pool) => readLast((text) => pool.query(text)));
    },
    async *readAll() {
      let after = 0;
      for (;;) {
        const { rows } = await withPool('readAll', (pool) =>
          pool.query(`SELECT seq, hash, doc FROM ${receipts} WHERE seq > $1 ORDER BY seq LIMIT 500`, [after]),
        );
        for (const row of rows) {
          const receipt = decodeReceiptRow(row, location);
          after = receipt.seq;
          yield receipt;
        }
        if (rows.length < 500) return;
      }
    },
    close() {
      return source.close();
    },
  };
}
