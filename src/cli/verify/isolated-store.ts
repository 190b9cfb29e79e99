/**
 * Where `hyphae verify` writes: a store of the same kind and settings as the config's, but its own —
 * a fresh SQLite file in a temp folder, or the same Redis or PostgreSQL server under a prefix of
 * its own — removed afterwards (each driver says how). The user's transitions are never read or
 * written.
 */
import { randomBytes } from 'node:crypto';
import { storeTarget } from '../../config/open-stores.js';
import type { ConfigEnv } from '../../config/parse-config.js';
import type { StoreSettings } from '../../config/types.js';
import { driverOf, type StoreTarget } from '../../storage/drivers.js';

/** The verification store and how to remove it. */
export interface IsolatedStore {
  /** Settings of the store to open; secrets already resolved, so a child process needs no env. */
  readonly settings: StoreSettings;
  /** What the user's store is, for the report (never a secret). */
  readonly describe: string;
  /** Whether another process can share it (false for memory). */
  readonly multiProcess: boolean;
  cleanup(): Promise<void>;
}

/** `target` as config settings, its secrets given as values. */
function settingsOf(target: StoreTarget): StoreSettings {
  const settings: Record<string, unknown> = { ...target };
  for (const field of driverOf(target).secretFields) settings[field] = { value: settings[field] };
  return settings as StoreSettings;
}

/** A store beside `store` for one verification run; always initialised fresh (its `create` is dropped). */
export async function isolatedStore(store: StoreSettings, env: ConfigEnv): Promise<IsolatedStore> {
  const id = randomBytes(4).toString('hex');
  const { create: _create, ...target } = storeTarget(store, env) as StoreTarget & { create?: boolean };
  const driver = driverOf(target);
  const isolated = await driver.isolate(target, id);
  return {
    settings: settingsOf(isolated.target),
    describe: isolated.describe,
    multiProcess: !driver.inProcess,
    cleanup: isolated.cleanup,
  };
}
