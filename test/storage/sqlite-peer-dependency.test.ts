import { describe, expect, it } from 'vitest';
import { GuardError } from '../../src/errors.js';
import { loadBetterSqlite3 } from '../../src/storage/sqlite/load-better-sqlite3.js';
import { loadSqliteDriver } from '../../src/storage/sqlite/sqlite-driver.js';

const notFound = (): Error =>
  Object.assign(new Error("Cannot find package 'better-sqlite3'"), { code: 'ERR_MODULE_NOT_FOUND' });
/** A runtime without node:sqlite (Node.js 20) and without better-sqlite3 installed. */
const bare = { nodeSqlite: () => undefined, importBetterSqlite3: () => Promise.reject(notFound()) };

describe('sqlite storage peer dependency', () => {
  it('loads the better-sqlite3 Database constructor', async () => {
    expect(typeof (await loadBetterSqlite3())).toBe('function');
  });

  it('names the missing package and how to install it', async () => {
    const notFound = Object.assign(new Error("Cannot find package 'better-sqlite3'"), { code: 'ERR_MODULE_NOT_FOUND' });
    const error: unknown = await loadBetterSqlite3(() => Promise.reject(notFound)).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(GuardError);
    expect(error).toMatchObject({ code: 'missing_peer_dependency', cause: notFound });
    expect((error as Error).message).toContain('`better-sqlite3`, which is not installed');
    expect((error as Error).message).toContain('`npm install better-sqlite3`');
  });

  it('reports a package that fails to load the same way', async () => {
    const broken = new Error('native module was compiled against a different Node.js version');
    const error: unknown = await loadBetterSqlite3(() => Promise.reject(broken)).catch((reason: unknown) => reason);
    expect(error).toMatchObject({ code: 'missing_peer_dependency', cause: broken });
    expect((error as Error).message).toContain('could not be loaded');
  });
});

describe('sqlite driver choice', () => {
  it('on a runtime with neither driver, names the runtime and the one command to run', async () => {
    const error: unknown = await loadSqliteDriver(undefined, bare).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(GuardError);
    expect(error).toMatchObject({ code: 'missing_peer_dependency', cause: { code: 'ERR_MODULE_NOT_FOUND' } });
    const message = (error as Error).message;
    expect(message).toContain(
      `Node.js 22.13 or later (built-in \`node:sqlite\`; this is Node.js ${process.versions.node})`,
    );
    expect(message).toContain('`better-sqlite3`, which is not installed: install it with `npm install better-sqlite3`');
  });

  it('refuses `node:sqlite` on a runtime without it, whatever else is installed', async () => {
    const error: unknown = await loadSqliteDriver('node:sqlite', { nodeSqlite: () => undefined }).catch(
      (reason: unknown) => reason,
    );
    expect(error).toMatchObject({ code: 'sqlite_driver_unavailable' });
    expect((error as Error).message).toContain("choose `driver: 'better-sqlite3'`");
  });

  it('takes better-sqlite3 by default where node:sqlite is absent, and when asked for it', async () => {
    const fallback = await loadSqliteDriver(undefined, { nodeSqlite: () => undefined });
    expect(fallback.driver).toBe('better-sqlite3');
    expect((await loadSqliteDriver('better-sqlite3')).driver).toBe('better-sqlite3');
  });
});
