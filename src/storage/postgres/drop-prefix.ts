/**
 * Dropping the tables under a prefix: what `hyphae verify` does to the ledger it wrote beside the
 * user's (never the user's own tables).
 */
import { importPeerDependency } from '../../peer-dependency.js';

interface PgPool {
  query(text: string, values?: unknown[]): Promise<{ rows: Record<string, unknown>[] }>;
  end(): Promise<void>;
}

interface PgModule {
  default: { Pool: new (options: { connectionString: string; max: number }) => PgPool };
}

/** Drop every table of `schema` whose name starts with `prefix`. */
export async function dropPostgresTables(dsn: string, schema: string, prefix: string): Promise<void> {
  const pg = await importPeerDependency(
    async () => (await import('pg')) as unknown as PgModule,
    'pg',
    'The PostgreSQL ledger storage',
  );
  const pool = new pg.default.Pool({ connectionString: dsn, max: 1 });
  try {
    const { rows } = await pool.query(
      'select table_name from information_schema.tables where table_schema = $1 and starts_with(table_name, $2)',
      [schema, prefix],
    );
    for (const row of rows) await pool.query(`drop table if exists "${schema}"."${String(row.table_name)}"`);
  } finally {
    await pool.end();
  }
}
