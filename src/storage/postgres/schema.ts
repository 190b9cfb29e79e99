/**
 * Table names and the idempotent schema migration of the PostgreSQL driver.
 */
import { createHash } from 'node:crypto';
import { InvalidOptionError, LedgerMissingError, LedgerStorageCorruptError } from '../../errors.js';

/** The schema version this driver reads and writes. */
export const SCHEMA_VERSION = 1;

/** SQLSTATE the migration raises when the stored schema is newer than {@link SCHEMA_VERSION}. */
const SCHEMA_TOO_NEW = 'HY001';
/** SQLSTATE the migration raises when the stored schema version is not a number. */
const SCHEMA_UNREADABLE = 'HY002';
/** SQLSTATE the migration raises when the version row is kept but the transitions table is gone. */
const TABLE_MISSING = 'HY003';
/** SQLSTATE the migration raises when the store holds no ledger and it may not create one. */
const NO_LEDGER = 'HY004';
/** SQLSTATE the migration raises when the tables exist without a ledger id and it may not write one. */
const NO_LEDGER_ID = 'HY005';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** The ledger a migration initialises when the store holds none, and whether it may. */
export interface LedgerInit {
  readonly ledgerId: string;
  readonly createdAt: number;
  /** False refuses a store without a ledger id (`create: false`). */
  readonly create: boolean;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** Room left for the longest derived name (`<prefix>transitions_updated_idx`) in 63 bytes. */
const MAX_PREFIX_LENGTH = 40;

/** The qualified, quoted names of the driver's tables and indexes. */
export interface TableNames {
  /** `schema.prefix` for messages. */
  readonly label: string;
  readonly schema: string;
  readonly meta: string;
  readonly transitions: string;
  /** Key of the advisory lock that serialises migrations of these tables. */
  readonly lockKey: string;
}

/** Validate `schema` and `tablePrefix` and derive the table names; anything unsafe is refused. */
export function tableNames(schema: string, tablePrefix: string): TableNames {
  if (!IDENTIFIER.test(schema) || schema.length > 63) {
    throw new InvalidOptionError(
      'schema',
      `Schema name \`${schema}\` must match \`[A-Za-z_][A-Za-z0-9_]*\` (at most 63 characters)`,
    );
  }
  if (!(IDENTIFIER.test(tablePrefix) && tablePrefix.length <= MAX_PREFIX_LENGTH)) {
    throw new InvalidOptionError(
      'tablePrefix',
      `Table prefix \`${tablePrefix}\` must match \`[A-Za-z_][A-Za-z0-9_]*\` (at most ${MAX_PREFIX_LENGTH} characters)`,
    );
  }
  const quote = (name: string): string => `"${schema}"."${tablePrefix}${name}"`;
  const digest = createHash('sha256').update(`hyphae:${schema}.${tablePrefix}`).digest();
  return {
    label: `${schema}.${tablePrefix}`,
    schema: `"${schema}"`,
    meta: quote('meta'),
    transitions: quote('transitions'),
    lockKey: digest.readBigInt64BE(0).toString(),
  };
}

/**
 * The migration, as one DO block: PostgreSQL runs it in one transaction, so the advisory lock it
 * takes is held until every table exists and two processes migrating at once simply queue.
 *
 * Race it handles: processes A and B both start on an empty database; A takes the lock, creates
 * the tables and commits; B then takes the lock, reads version 1 (each statement of the block sees
 * what committed before it) and returns without touching anything.
 */
export function migrationSql(names: TableNames, schema: string, tablePrefix: string, init: LedgerInit): string {
  const index = (suffix: string): string => `"${tablePrefix}transitions_${suffix}_idx"`;
  if (!UUID.test(init.ledgerId) || !Number.isSafeInteger(init.createdAt)) {
    throw new RangeError(`Ledger id \`${init.ledgerId}\` must be a lowercase UUID`);
  }
  // The ledger id rows: written once, by whichever migration first finds none.
  const writeLedgerId = `INSERT INTO ${names.meta} (name, value) VALUES ('ledger_id', '${init.ledgerId}'),
      ('ledger_created_at', '${init.createdAt}') ON CONFLICT (name) DO NOTHING;`;
  return `DO $hyphae$
DECLARE
  found text;
  ledger text;
BEGIN
  PERFORM pg_advisory_xact_lock(${names.lockKey});
  IF to_regclass('${names.meta}') IS NOT NULL THEN
    SELECT value INTO found FROM ${names.meta} WHERE name = 'schema_version';
    SELECT value INTO ledger FROM ${names.meta} WHERE name = 'ledger_id';
  END IF;
  IF found IS NOT NULL AND found !~ '^[0-9]{1,9}$' THEN
    RAISE EXCEPTION 'unreadable schema version' USING ERRCODE = '${SCHEMA_UNREADABLE}', DETAIL = found;
  END IF;
  IF found::integer > ${SCHEMA_VERSION} THEN
    RAISE EXCEPTION 'schema version too new' USING ERRCODE = '${SCHEMA_TOO_NEW}', DETAIL = found;
  END IF;
  -- A version row without its table means records were lost; recreating it would read as empty.
  IF found IS NOT NULL AND to_regclass('${names.transitions}') IS NULL THEN
    RAISE EXCEPTION 'transitions table missing' USING ERRCODE = '${TABLE_MISSING}';
  END IF;
  IF ledger IS NULL AND NOT ${init.create ? 'TRUE' : 'FALSE'} THEN
    IF found IS NOT NULL THEN
      RAISE EXCEPTION 'no ledger id' USING ERRCODE = '${NO_LEDGER_ID}';
    END IF;
    RAISE EXCEPTION 'no ledger' USING ERRCODE = '${NO_LEDGER}';
  END IF;
  IF found::integer = ${SCHEMA_VERSION} THEN
    IF ledger IS NULL THEN
      ${writeLedgerId}
    END IF;
    RETURN;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = '${schema}') THEN
    CREATE SCHEMA ${names.schema};
  END IF;
  CREATE TABLE IF NOT EXISTS ${names.meta} (
    name text PRIMARY KEY,
    value text NOT NULL
  );
  CREATE TABLE IF NOT EXISTS ${names.transitions} (
    key text COLLATE "C" PRIMARY KEY,
    ticket_key text COLLATE "C" UNIQUE,
    tool text NOT NULL,
    kind text NOT NULL,
    outcome text NOT NULL,
    updated_at bigint NOT NULL,
    version integer NOT NULL,
    doc text NOT NULL
  );
  CREATE INDEX IF NOT EXISTS ${index('outcome')} ON ${names.transitions} (outcome);
  CREATE INDEX IF NOT EXISTS ${index('tool')} ON ${names.transitions} (tool);
  CREATE INDEX IF NOT EXISTS ${index('updated')} ON ${names.transitions} (updated_at, key);
  INSERT INTO ${names.meta} (name, value) VALUES ('schema_version', '${SCHEMA_VERSION}')
    ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value;
  ${writeLedgerId}
END
$hyphae$`;
}

/** A table the driver created is gone (SQLSTATE 42P01 after the migration): records were lost. */
export function droppedTableError(names: TableNames, error: unknown): unknown {
  if ((error as { code?: unknown } | null)?.code !== '42P01') return error;
  return new LedgerStorageCorruptError(
    `postgres:${names.label}transitions`,
    'a ledger table was dropped after the store was opened: records were lost',
    { cause: error },
  );
}

/** Turn the migration's own refusals into a fail-closed corruption error; other errors pass. */
export function migrationError(names: TableNames, error: unknown): unknown {
  const { code, detail } = (error ?? {}) as { code?: unknown; detail?: unknown };
  const found = typeof detail === 'string' ? detail : '?';
  const location = `postgres:${names.label}meta`;
  if (code === SCHEMA_TOO_NEW) {
    return new LedgerStorageCorruptError(
      location,
      `schema version \`${found}\` is newer than the \`${SCHEMA_VERSION}\` this version of hyphae knows`,
      { cause: error },
    );
  }
  if (code === SCHEMA_UNREADABLE) {
    return new LedgerStorageCorruptError(location, `schema version \`${found}\` is not a number`, { cause: error });
  }
  if (code === TABLE_MISSING) {
    return new LedgerStorageCorruptError(
      location,
      `table \`${names.label}transitions\` is missing while its schema version row is kept: records were lost`,
      { cause: error },
    );
  }
  if (code === NO_LEDGER_ID) {
    return new LedgerStorageCorruptError(
      location,
      'the ledger tables have no ledger id (written by an older hyphae: run `hyphae init --stores` once to adopt them) and the storage was opened with `create: false`',
      { cause: error },
    );
  }
  if (code === NO_LEDGER) {
    return new LedgerMissingError(
      location,
      'the store holds no ledger (never initialised, or its tables were dropped) and the storage was opened with `create: false`',
      { cause: error },
    );
  }
  return error;
}
