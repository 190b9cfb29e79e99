import { describe, expect, it } from 'vitest';
import { GuardError } from '../../src/errors.js';
import { loadBetterSqlite3 } from '../../src/storage/sqlite/load-better-sqlite3.js';

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
