/**
 * The storage a demo process opens: SQLite by path, or a shared Redis / PostgreSQL by URL.
 */
import type { LedgerStorage } from '../../storage/ledger-storage.js';

/** Which store the demo's ledger lives in. */
export type DemoBackend =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'redis'; readonly url: string }
  | { readonly kind: 'postgres'; readonly url: string };

/** Open the backend's storage; drivers are loaded only when chosen. */
export async function openDemoStorage(backend: DemoBackend): Promise<LedgerStorage> {
  switch (backend.kind) {
    case 'sqlite': {
      const { createSqliteStorage } = await import('../../storage/sqlite.js');
      return createSqliteStorage({ path: backend.path });
    }
    case 'redis': {
      const { createRedisStorage } = await import('../../storage/redis.js');
      return createRedisStorage({ url: backend.url }, { prefix: 'hyphae-demo:' });
    }
    case 'postgres': {
      const { createPostgresStorage } = await import('../../storage/postgres.js');
      return createPostgresStorage({ connectionString: backend.url }, { tablePrefix: 'hyphae_demo_' });
    }
  }
}

/** The backend as command-line arguments for a child process. */
export function backendArgs(backend: DemoBackend): string[] {
  return [backend.kind, backend.kind === 'sqlite' ? backend.path : backend.url];
}

/** Parse what {@link backendArgs} wrote. */
export function parseBackendArgs(kind: string | undefined, target: string | undefined): DemoBackend {
  if (target === undefined) throw new Error('Missing demo backend target');
  if (kind === 'sqlite') return { kind, path: target };
  if (kind === 'redis' || kind === 'postgres') return { kind, url: target };
  throw new Error(`Unknown demo backend \`${String(kind)}\``);
}
