import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  GuardError,
  InvalidOptionError,
  LedgerStorageCorruptError,
  LedgerStorageUnavailableError,
} from '../../src/errors.js';
import { loadPg, ownedPool, type PgModuleLike } from '../../src/storage/postgres/pool.js';
import { createPostgresStorage, type PgPoolLike } from '../../src/storage/postgres.js';
import { encodeRecord } from '../../src/storage/record-codec.js';
import { describeStorageConformance, makeTestRecord } from '../../src/testing/storage-conformance.js';
import { inListOrder, integrationSkip, listAll, POSTGRES_URL, probePostgres } from '../helpers/integration.js';

const skip = integrationSkip(await probePostgres());
// One table prefix per run of this file; every table and schema it creates is dropped afterwards.
const runPrefix = `hyphae_t${randomBytes(4).toString('hex')}_`;
const T = 1_767_225_600_000;
let counter = 0;
function freshPrefix(): string {
  counter += 1;
  return `${runPrefix}${counter}_`;
}

let admin: pg.Pool;
const schemas: string[] = [];

describe.skipIf(skip)('postgres storage', () => {
  beforeAll(() => {
    admin = new pg.Pool({ connectionString: POSTGRES_URL });
    admin.on('error', () => {});
  });

  afterAll(async () => {
    const { rows } = await admin.query<{ name: string }>(
      `SELECT format('%I.%I', schemaname, tablename) AS name FROM pg_tables WHERE tablename LIKE $1`,
      [`${runPrefix}%`],
    );
    for (const { name } of rows) await admin.query(`DROP TABLE IF EXISTS ${name}`);
    for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await admin.end();
  });

  const conformancePrefix = freshPrefix();
  describeStorageConformance({
    name: 'postgres',
    open: () => createPostgresStorage({ connectionString: POSTGRES_URL }, { tablePrefix: conformancePrefix }),
    api: { describe, it },
    identity: true,
  });

  /** A storage on its own tables, and the names to poke at those tables directly. */
  function openFresh(schema = 'public') {
    const tablePrefix = freshPrefix();
    const storage = createPostgresStorage({ connectionString: POSTGRES_URL }, { schema, tablePrefix });
    return { storage, tablePrefix, table: (name: string): string => `"${schema}"."${tablePrefix}${name}"` };
  }

  describe('schema', () => {
    it('creates its tables once, whether called twice or raced from several pools', async () => {
      const tablePrefix = freshPrefix();
      const storages = Array.from({ length: 6 }, () =>
        createPostgresStorage({ connectionString: POSTGRES_URL }, { tablePrefix }),
      );
      await Promise.all(storages.map((storage) => storage.ensureSchema()));
      const [first, second] = storages;
      await first?.ensureSchema();
      await first?.ensureSchema();
      expect((await first?.create(makeTestRecord()))?.created).toBe(true);
      expect((await second?.list())?.records).toHaveLength(1);
      const { rows } = await admin.query(`SELECT name, value FROM "public"."${tablePrefix}meta" ORDER BY name`);
      // One ledger id, however many pools raced to initialise the store.
      const identities = await Promise.all(storages.map((storage) => storage.identity()));
      expect(new Set(identities.map((identity) => identity.ledgerId)).size).toBe(1);
      expect(rows).toEqual([
        { name: 'ledger_created_at', value: String(identities[0]?.createdAt) },
        { name: 'ledger_id', value: identities[0]?.ledgerId },
        { name: 'schema_version', value: '1' },
      ]);
      const indexes = await admin.query<{ indexname: string }>(
        'SELECT indexname FROM pg_indexes WHERE tablename = $1 ORDER BY indexname',
        [`${tablePrefix}transitions`],
      );
      expect(indexes.rows.map((row) => row.indexname.slice(tablePrefix.length))).toEqual([
        'transitions_outcome_idx',
        'transitions_pkey',
        'transitions_ticket_key_key',
        'transitions_tool_idx',
        'transitions_updated_idx',
      ]);
      await Promise.all(storages.map((storage) => storage.close()));
    });

    it('creates a missing schema', async () => {
      const schema = `hyphae_s${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      const { storage } = openFresh(schema);
      const record = makeTestRecord();
      expect((await storage.create(record)).created).toBe(true);
      expect(await storage.get(record.key)).toEqual(record);
      await storage.close();
    });

    it('fails closed on a schema version newer than it knows, or unreadable', async () => {
      const { storage, table, tablePrefix } = openFresh();
      await storage.ensureSchema();
      await storage.close();
      for (const value of ['2', 'two']) {
        await admin.query(`UPDATE ${table('meta')} SET value = $1 WHERE name = 'schema_version'`, [value]);
        const later = createPostgresStorage({ pool: admin }, { tablePrefix });
        const error = await later.get('any').catch((caught: unknown) => caught);
        expect(error).toBeInstanceOf(LedgerStorageCorruptError);
        expect((error as Error).message).toContain(`\`${value}\``);
        await expect(later.ensureSchema()).rejects.toBeInstanceOf(LedgerStorageCorruptError);
        await expect(later.create(makeTestRecord())).rejects.toBeInstanceOf(LedgerStorageCorruptError);
        await later.close();
      }
      const { rows } = await admin.query(`SELECT count(*)::int AS n FROM ${table('transitions')}`);
      expect(rows).toEqual([{ n: 0 }]);
    });

    it('refuses unsafe schema names and table prefixes', () => {
      for (const tablePrefix of ['bad-prefix', 'x"; DROP TABLE users; --', '1abc', '', 'a'.repeat(41)]) {
        expect(() => createPostgresStorage({ connectionString: POSTGRES_URL }, { tablePrefix })).toThrow(
          InvalidOptionError,
        );
      }
      expect(() => createPostgresStorage({ connectionString: POSTGRES_URL }, { schema: 'public.x' })).toThrow(
        /Schema name `public.x`/,
      );
    });
  });

  describe('driver', () => {
    it('takes a pg.Pool or a pg.Client as its pool, with no cast', () => {
      expectTypeOf<pg.Pool>().toExtend<PgPoolLike>();
      expectTypeOf<pg.Client>().toExtend<PgPoolLike>();
    });

    it('declares its capabilities', () => {
      const { storage } = openFresh();
      expect(storage.capabilities).toEqual({ name: 'postgres', crossProcess: true, durable: true });
    });

    it('never ends a pool it was given', async () => {
      const pool = new pg.Pool({ connectionString: POSTGRES_URL });
      const storage = createPostgresStorage({ pool }, { tablePrefix: freshPrefix() });
      await storage.create(makeTestRecord());
      await storage.close();
      await storage.close();
      expect(pool.ended).toBe(false);
      expect((await pool.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
      await expect(storage.get('any')).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
      await pool.end();
    });

    it('ends the pool it created, once', async () => {
      const created: pg.Pool[] = [];
      const spying: PgModuleLike = {
        default: {
          Pool: class extends pg.Pool {
            constructor(config: pg.PoolConfig) {
              super(config);
              created.push(this);
            }
          },
        },
      };
      const connection = ownedPool(POSTGRES_URL, async () => spying);
      const [a, b] = await Promise.all([connection.pool('get'), connection.pool('get')]);
      expect(a).toBe(b);
      await a.query('SELECT 1');
      expect(created).toHaveLength(1);
      expect(created[0]?.ended).toBe(false);
      await connection.close();
      await connection.close();
      expect(created[0]?.ended).toBe(true);
      await expect(connection.pool('get')).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
    });

    it('fails closed on a stored document that is not a record', async () => {
      const { storage, table } = openFresh();
      const record = makeTestRecord();
      await storage.create(record);
      await admin.query(`UPDATE ${table('transitions')} SET doc = $1 WHERE key = $2`, [
        '{"key": truncated',
        record.key,
      ]);
      await expect(storage.get(record.key)).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      await expect(storage.findByTicket(record.ticketKey ?? '')).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      await expect(storage.list()).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      await expect(storage.create(record)).rejects.toBeInstanceOf(LedgerStorageCorruptError);
      await storage.close();
    });

    it('reports an unreachable server as unavailable', async () => {
      const storage = createPostgresStorage({ connectionString: 'postgres://postgres@127.0.0.1:1/test' });
      const error = await storage.get('any').catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(LedgerStorageUnavailableError);
      expect((error as Error).cause).toBeInstanceOf(Error);
      await expect(storage.ensureSchema()).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
      await expect(storage.create(makeTestRecord())).rejects.toBeInstanceOf(LedgerStorageUnavailableError);
      await storage.close();
    });

    it('names `pg` when the package cannot be loaded', async () => {
      const missing = Object.assign(new Error("Cannot find package 'pg'"), { code: 'ERR_MODULE_NOT_FOUND' });
      const error = await loadPg(() => Promise.reject(missing)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(GuardError);
      expect((error as GuardError).code).toBe('missing_peer_dependency');
      expect((error as Error).message).toContain('`pg`');
      expect((error as Error).cause).toBe(missing);
    });

    it('refuses records and bounds it cannot store exactly, before any I/O', async () => {
      const storage = createPostgresStorage({ connectionString: 'postgres://postgres@127.0.0.1:1/test' });
      await expect(storage.create(makeTestRecord({ updatedAt: 1.5 }))).rejects.toBeInstanceOf(RangeError);
      await expect(storage.list({ limit: 0 })).rejects.toBeInstanceOf(RangeError);
      await expect(storage.list({ cursor: '%%%' })).rejects.toBeInstanceOf(RangeError);
      await storage.close();
    });
  });

  describe('create race', () => {
    /** Hold an uncommitted insert of `blocker`, start `create(contender)`, then commit. */
    async function raceAgainstUncommitted(
      contenderOf: (blocker: ReturnType<typeof makeTestRecord>) => ReturnType<typeof makeTestRecord>,
    ) {
      const { storage, table } = openFresh();
      await storage.ensureSchema();
      const blocker = makeTestRecord();
      const holder = await admin.connect();
      try {
        await holder.query('BEGIN');
        await holder.query(
          `INSERT INTO ${table('transitions')} (key, ticket_key, tool, kind, outcome, updated_at, version, doc)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            blocker.key,
            blocker.ticketKey,
            blocker.tool,
            blocker.kind,
            blocker.outcome,
            blocker.updatedAt,
            1,
            encodeRecord(blocker),
          ],
        );
        const pending = storage.create(contenderOf(blocker));
        await waitForLockWait(table('transitions'));
        await holder.query('COMMIT');
        return { blocker, result: await pending, storage };
      } finally {
        holder.release();
      }
    }

    it('resolves a key conflict with a row committed while its insert waited', async () => {
      const { blocker, result, storage } = await raceAgainstUncommitted((b) => makeTestRecord({ key: b.key }));
      expect(result).toEqual({ created: false, conflict: 'key', record: blocker });
      await storage.close();
    });

    it('resolves a ticket conflict with a row committed while its insert waited', async () => {
      const { blocker, result, storage } = await raceAgainstUncommitted((b) =>
        makeTestRecord({ ticketKey: b.ticketKey }),
      );
      expect(result).toEqual({ created: false, conflict: 'ticket', record: blocker });
      await storage.close();
    });
  });

  /** Wait until some backend's statement on `table` is waiting for a lock. */
  async function waitForLockWait(table: string): Promise<void> {
    for (let i = 0; i < 500; i += 1) {
      const { rows } = await admin.query(
        `SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND position($1 in query) > 0`,
        [table],
      );
      if (rows.length > 0) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    throw new Error(`No statement on \`${table}\` started waiting for a lock`);
  }

  describe('list paging', () => {
    it('pages 250 records with a filter and returns every match exactly once', async () => {
      const { storage } = openFresh();
      const [toolA, toolB] = ['paged_a', 'paged_b'];
      const outcomes = ['COMPLETED', 'UNKNOWN', 'IN_FLIGHT'] as const;
      const records = Array.from({ length: 250 }, (_, i) =>
        makeTestRecord({
          tool: i % 2 === 0 ? toolA : toolB,
          outcome: outcomes[i % 3] ?? 'COMPLETED',
          updatedAt: T + (i % 9),
        }),
      );
      for (let i = 0; i < records.length; i += 25) {
        await Promise.all(records.slice(i, i + 25).map((record) => storage.create(record)));
      }
      const matching = records.filter((r) => r.tool === toolA && r.outcome === 'COMPLETED');
      for (const limit of [1, 7, 42, 1000]) {
        const { keys, pageSizes } = await listAll(storage, { tool: toolA, outcome: 'COMPLETED', limit });
        expect(keys).toEqual(inListOrder(matching));
        expect(new Set(keys).size).toBe(matching.length);
        expect(pageSizes.slice(0, -1).every((size) => size === limit)).toBe(true);
      }
      const { keys } = await listAll(storage, {
        tool: toolB,
        outcome: ['UNKNOWN', 'IN_FLIGHT'],
        kind: 'tool',
        limit: 9,
      });
      expect(keys).toEqual(inListOrder(records.filter((r) => r.tool === toolB && r.outcome !== 'COMPLETED')));
      await storage.close();
    });
  });
});
