/**
 * The storage a demo process opens: SQLite by path, or a shared Redis / PostgreSQL by URL, under a
 * prefix of the demo's own; the driver of its kind opens it.
 */
import { driverOf, STORE_KINDS, type StoreTarget } from '../../storage/drivers.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';

/** Which store the demo's ledger lives in. */
export type DemoBackend = StoreTarget;

/** Open the backend's storage; its driver is loaded only when chosen. */
export function openDemoStorage(backend: DemoBackend): Promise<LedgerStorage> {
  return driverOf(backend).open(backend);
}

/** The backend as command-line arguments for a child process: its kind, and its settings as JSON. */
export function backendArgs(backend: DemoBackend): string[] {
  return [backend.kind, JSON.stringify(backend)];
}

/** Parse what {@link backendArgs} wrote. */
export function parseBackendArgs(kind: string | undefined, target: string | undefined): DemoBackend {
  if (target === undefined) throw new Error('Missing demo backend target');
  const backend = JSON.parse(target) as DemoBackend;
  if (!STORE_KINDS.includes(backend.kind) || backend.kind !== kind) {
    throw new Error(`Unknown demo backend \`${String(kind)}\``);
  }
  return backend;
}
