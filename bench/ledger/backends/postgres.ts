/**
 * The PostgreSQL backend (server at 127.0.0.1:5432, database `test`, tables under a per-run prefix
 * that are dropped after); its baseline is the driver's statements sent through the same pool.
 */
import type { TransitionRecord } from '../../../src/index.js';
import { openRawPostgres, statementTexts } from '../../lib/postgres-raw.js';
import { randomKey } from '../../lib/random-key.js';
import type { Backend } from '../backend.js';

const URL = 'postgres://postgres@127.0.0.1:5432/test';

async function createPool() {
  const pg = (await import('pg')).default;
  return new pg.Pool({ connectionString: URL, connectionTimeoutMillis: 2000 });
}

/** PostgreSQL through a `pg` pool the bench owns. */
export const postgresBackend: Backend = {
  name: 'postgres',
  target: { kind: 'ratio', max: 1.3, text: 'PostgreSQL ledgered call ≤ 1.3× its raw round trips (2 statements)' },
  baseline: "the driver's statements sent through the same pool (INSERT … ON CONFLICT create, then the CAS UPDATE)",
  async available() {
    try {
      await import('../../../src/storage/postgres.js');
    } catch (error) {
      return `driver not loadable (${error instanceof Error ? error.message : String(error)})`;
    }
    const pool = await createPool();
    try {
      await pool.query('SELECT 1');
      return null;
    } catch {
      return `no PostgreSQL server answering at ${URL}`;
    } finally {
      await pool.end();
    }
  },
  async open() {
    const { createPostgresStorage } = await import('../../../src/storage/postgres.js');
    const { createStatement, updateStatement } = await import('../../../src/storage/postgres/queries.js');
    const { tableNames } = await import('../../../src/storage/postgres/schema.js');
    const pool = await createPool();
    const run = `bench_${randomKey().slice(0, 8)}_`;
    const [ledgerPrefix, rawPrefix] = [`${run}ledger_`, `${run}raw_`];
    const storage = createPostgresStorage({ pool }, { tablePrefix: ledgerPrefix });
    await storage.ensureSchema();
    // The raw table is made by the driver's own migration, so it is the same table.
    const rawStorage = createPostgresStorage({ pool }, { tablePrefix: rawPrefix });
    await rawStorage.ensureSchema();
    await rawStorage.close();
    const rawNames = tableNames('public', rawPrefix);
    const build = {
      create: (record: TransitionRecord, doc: string) => createStatement(rawNames, record, doc),
      update: (record: TransitionRecord, doc: string) =>
        updateStatement(rawNames, record.key, record.version, record, doc),
    };
    return {
      storage: () => storage,
      baselines(writes) {
        const completed = writes.call.docs.at(-1) ?? '{}';
        const raw = openRawPostgres(pool, statementTexts(build, completed));
        return {
          call: { name: 'postgres raw: create + update', start: () => raw.write(writes.call.docs) },
          replay: { name: 'postgres raw: create meeting the row', start: () => raw.replay(completed) },
          sideEffect: { name: 'postgres raw: create + 2 updates', start: () => raw.write(writes.sideEffect.docs) },
        };
      },
      async close() {
        await storage.close();
        for (const prefix of [ledgerPrefix, rawPrefix]) {
          const names = tableNames('public', prefix);
          await pool.query(`DROP TABLE IF EXISTS ${names.transitions}, ${names.meta}`);
        }
        await pool.end();
      },
    };
  },
};
