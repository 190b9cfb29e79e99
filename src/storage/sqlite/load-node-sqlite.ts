/**
 * Loading Node's built-in `node:sqlite` (Node.js 22.13 and later without a flag; absent on 20).
 */
import type { NodeSqliteDatabase } from './sqlite-database.js';

/** The part of `node:sqlite` the driver needs: the `DatabaseSync` constructor. */
export interface NodeSqliteModule {
  readonly DatabaseSync: new (
    path: string,
    options?: { readonly timeout?: number; readonly enableForeignKeyConstraints?: boolean },
  ) => NodeSqliteDatabase;
}

/**
 * The `node:sqlite` module when this runtime has it, else undefined. `process.getBuiltinModule`
 * neither throws for an absent built-in nor needs an import a bundler would try to resolve.
 */
export function nodeSqliteModule(): NodeSqliteModule | undefined {
  const loaded = process.getBuiltinModule('node:sqlite') as Partial<NodeSqliteModule> | undefined;
  return typeof loaded?.DatabaseSync === 'function' ? (loaded as NodeSqliteModule) : undefined;
}
