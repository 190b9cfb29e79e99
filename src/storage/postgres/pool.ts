/**
 * The PostgreSQL driver's pool: a caller's pool or one created lazily from a connection string,
 * and errors translated into the ledger's storage errors.
 */
import { GuardError, LedgerStorageUnavailableError } from '../../errors.js';
import { importPeerDependency } from '../../peer-dependency.js';

/** The result of one query, as `pg` returns it. */
export interface PgQueryResultLike {
  readonly rows: readonly unknown[];
  readonly rowCount: number | null;
}

/** The part of a `pg` `Pool` the driver uses; a `pg.Pool` fits it (so does a `pg.Client`). */
export interface PgPoolLike {
  query(text: string, values?: readonly unknown[]): Promise<PgQueryResultLike>;
  end(): Promise<void>;
}

/** A pool the driver created and therefore owns. */
interface OwnedPgPool extends PgPoolLike {
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** The part of the `pg` module the driver uses. */
export interface PgModuleLike {
  readonly default: {
    readonly Pool: new (config: { connectionString: string; connectionTimeoutMillis: number }) => OwnedPgPool;
  };
}

/** Hands out a pool and releases it on close. */
export interface PgConnection {
  pool(operation: string): Promise<PgPoolLike>;
  close(): Promise<void>;
}

const closedError = (): Error => new Error('PostgreSQL ledger storage is closed');

/** A connection around a pool the caller passed: used as is, never ended by us. */
export function borrowedPool(pool: PgPoolLike): PgConnection {
  let closed = false;
  return {
    async pool(operation) {
      if (closed) throw new LedgerStorageUnavailableError(operation, { cause: closedError() });
      return pool;
    },
    async close() {
      closed = true;
    },
  };
}

function importPg(): Promise<PgModuleLike> {
  return import('pg');
}

/**
 * Load the `pg` module, or fail with `missing_peer_dependency`.
 *
 * @param importModule replaces the dynamic import (tests use it to simulate a missing package).
 */
export async function loadPg(importModule: () => Promise<PgModuleLike> = importPg): Promise<PgModuleLike['default']> {
  const pg = await importPeerDependency(
    importModule,
    'pg',
    'The PostgreSQL ledger storage',
    'to connect by `connectionString`',
  );
  return pg.default;
}

/**
 * A connection that creates its own `pg.Pool` on first use and ends it on close.
 *
 * @param importModule replaces the dynamic import of `pg` (tests use it to watch the pool).
 */
export function ownedPool(
  connectionString: string,
  importModule: () => Promise<PgModuleLike> = importPg,
): PgConnection {
  let pending: Promise<OwnedPgPool> | null = null;
  let closed = false;

  async function open(): Promise<OwnedPgPool> {
    const { Pool } = await loadPg(importModule);
    // A bounded connect: without it a black-holed server would hold the ledger forever.
    const pool = new Pool({ connectionString, connectionTimeoutMillis: 5000 });
    // `pg` emits errors of idle connections as events and an unheard 'error' event crashes the
    // process; the pool drops that connection and the next query reports its own failure.
    pool.on('error', () => {});
    return pool;
  }

  return {
    async pool(operation) {
      if (closed) throw new LedgerStorageUnavailableError(operation, { cause: closedError() });
      pending ??= open();
      const opening = pending;
      try {
        return await opening;
      } catch (cause) {
        if (pending === opening) pending = null;
        throw toStorageError(operation, cause);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      const current = await pending?.catch(() => null);
      pending = null;
      await current?.end();
    },
  };
}

/** Our own errors pass through; anything else from `pg` means the store did not do the work. */
export function toStorageError(operation: string, error: unknown): Error {
  if (error instanceof GuardError) return error;
  return new LedgerStorageUnavailableError(operation, { cause: error });
}
