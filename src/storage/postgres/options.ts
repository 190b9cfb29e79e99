/**
 * The options of the PostgreSQL stores (ledger and receipt sink): a module of its own, so each
 * store reads them without importing the other.
 */
import type { PgPoolLike } from './pool.js';

/** How the PostgreSQL driver reaches the server: a pool of yours, or a connection string. */
export type PostgresConnectionOptions =
  /** A `pg.Pool` (or anything shaped like it); the storage never ends it. */
  | { readonly pool: PgPoolLike }
  /** A `postgres://` URL; the storage loads `pg`, creates a pool on first use and ends it on `close()`. */
  | { readonly connectionString: string };

/** Settings of the PostgreSQL driver. */
export interface PostgresStorageSettings {
  /** Schema of the tables; default `public`. Created when missing. */
  readonly schema?: string;
  /** Prefix of the table names (`<prefix>meta`, `<prefix>transitions`); default `hyphae_`. */
  readonly tablePrefix?: string;
  /**
   * Create the tables and the ledger id when the store holds none (default true). False opens
   * only a ledger that exists: dropped tables or a new, empty database fail closed with
   * `LedgerStorageCorruptError` instead of starting a new, empty ledger.
   */
  readonly create?: boolean;
}
