import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { createRunSnapshots } from '../../src/context/snapshots/run-snapshots.js';
import { createSqliteStorage } from '../../src/storage/sqlite.js';
import { createSqliteSnapshotStorage } from '../../src/storage/sqlite-snapshots.js';
import { describeSnapshotRuns } from './snapshot-suite.js';

const dir = mkdtempSync(join(tmpdir(), 'hyphae-snapshots-'));
let files = 0;
const freshFile = (): string => join(dir, `runs-${files++}.db`);

afterAll(() => {
  rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
});

describeSnapshotRuns('sqlite (temp file)', async () => createSqliteSnapshotStorage({ path: freshFile() }));

describe('sqlite snapshot storage', () => {
  it('survives a reopen of the file', async () => {
    const path = freshFile();
    const first = createSqliteSnapshotStorage({ path });
    await createRunSnapshots({ storage: first }).run('run-1', (h) => h.record({ step: 'half' }));
    await first.close();

    const second = createSqliteSnapshotStorage({ path });
    const latest = await createRunSnapshots({ storage: second }).resume('run-1');
    await second.close();

    expect(latest).toMatchObject({ seq: 2, status: 'completed', state: { step: 'half' } });
  });

  it("uses a caller's database with a table prefix, next to the ledger, and never closes it", async () => {
    const db = new Database(freshFile());
    const ledger = createSqliteStorage({ database: db }, { tablePrefix: 'app_' });
    const storage = createSqliteSnapshotStorage({ database: db }, { tablePrefix: 'app_' });
    await ledger.ensureSchema();
    await storage.ensureSchema();

    await storage.append('r', { status: 'running', state: { a: 1 }, at: 7 });
    await storage.close();
    await storage.close();
    await ledger.close();
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name`).all();
    const versions = db.prepare('SELECT name, value FROM app_meta ORDER BY name').all();

    expect(db.open).toBe(true);
    expect(tables).toEqual([{ name: 'app_meta' }, { name: 'app_run_snapshots' }, { name: 'app_transitions' }]);
    expect(versions).toEqual([
      { name: 'ledger_created_at', value: expect.stringMatching(/^\d+$/) },
      { name: 'ledger_id', value: expect.stringMatching(/^[0-9a-f-]{36}$/) },
      { name: 'schema_version', value: '1' },
      { name: 'snapshots_schema_version', value: '1' },
    ]);
    await expect(storage.latest('r')).rejects.toThrow('is closed');
    db.close();
  });

  it('fails closed on a newer schema or an unreadable row', async () => {
    const path = freshFile();
    const storage = createSqliteSnapshotStorage({ path });
    await storage.append('r', { status: 'running', state: {}, at: 1 });
    await storage.close();
    const db = new Database(path);
    db.prepare(`UPDATE hyphae_run_snapshots SET doc = 'not json'`).run();
    const corrupt = createSqliteSnapshotStorage({ path });

    await expect(corrupt.latest('r')).rejects.toMatchObject({ code: 'snapshot_storage_error', operation: 'read' });
    await corrupt.close();
    db.prepare(`UPDATE hyphae_meta SET value = '2' WHERE name = 'snapshots_schema_version'`).run();
    db.close();
    const newer = createSqliteSnapshotStorage({ path });
    await expect(newer.latest('r')).rejects.toThrow(
      'snapshot schema version `2`, which this version of hyphae cannot read',
    );
    await newer.close();
  });

  it('gives concurrent appends from two connections distinct, ordered seqs', async () => {
    const path = freshFile();
    const a = createSqliteSnapshotStorage({ path });
    const b = createSqliteSnapshotStorage({ path });

    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 === 0 ? a : b).append('shared', { status: 'running', state: { i }, at: i }),
      ),
    );
    const history = await a.history('shared');
    await a.close();
    await b.close();

    expect(history.map((s) => s.seq)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    expect(new Set(history.map((s) => s.state.i)).size).toBe(20);
  });

  it('refuses a table prefix that is not a plain identifier', () => {
    expect(() => createSqliteSnapshotStorage({ path: ':memory:' }, { tablePrefix: 'x"; DROP' })).toThrow(
      'Table prefix',
    );
  });
});
