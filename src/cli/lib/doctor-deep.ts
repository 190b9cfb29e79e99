/**
 * `hyphae doctor --deep`: SQLite's full `PRAGMA integrity_check` over every SQLite file the config
 * names. Unlike the schema check (and `quick_check`), it reads every index against its table, so it
 * finds an index entry that was damaged (bits flipped in an index page): a record the ledger's
 * lookups can no longer see. It reads the whole file, so its cost grows with the ledger (see
 * docs/storage.md); it takes a read transaction only, so the agents using the file keep running.
 */
import { stat } from 'node:fs/promises';
import type { ConfigSettings } from '../../config/types.js';
import { type Described, type StoreTarget, storeFacts } from '../../storage/drivers.js';
import { openSqliteFile } from '../../storage/sqlite/open-file.js';
import type { DoctorItem } from './doctor-item.js';

/**
 * The store files a config names (ledgers and snapshots; receipts live in the ledger's file), each
 * once: every store that is a file is a SQLite database.
 */
function sqliteFiles(settings: ConfigSettings): string[] {
  const files = new Set<string>();
  const add = (store: Described<StoreTarget> | undefined): void => {
    const file = store === undefined ? undefined : storeFacts(store).file;
    if (file !== undefined) files.add(file);
  };
  add(settings.actionLedger?.store);
  const task = settings.taskLedger?.store;
  if (task !== undefined && task !== 'action_ledger') add(task);
  add(settings.runSnapshots?.store);
  return [...files];
}

async function checkIntegrity(file: string, timeoutMs: number): Promise<DoctorItem> {
  const name = `integrity ${file}`;
  try {
    await stat(file);
  } catch {
    return { name, ok: true, detail: 'does not exist yet; nothing to check' };
  }
  const started = Date.now();
  let db: Awaited<ReturnType<typeof openSqliteFile>> | undefined;
  try {
    db = await openSqliteFile({
      file,
      driver: undefined,
      busyTimeoutMs: timeoutMs,
      create: false,
      metaTable: 'hyphae_meta',
      location: file,
    });
    const rows = db.prepare('PRAGMA integrity_check').all() as { integrity_check?: unknown }[];
    const problems = rows.map((row) => String(row.integrity_check)).filter((line) => line !== 'ok');
    const pages = Number(db.pragmaValue('page_count'));
    const took = `${pages} pages in ${Date.now() - started} ms`;
    if (problems.length === 0) return { name, ok: true, detail: `integrity_check ok (${took})` };
    const indexOnly = problems.every((line) => /index/.test(line));
    return {
      name,
      ok: false,
      detail: [`integrity_check found ${problems.length} problem(s) (${took}):`, ...problems.slice(0, 5)].join('\n'),
      fix: indexOnly
        ? 'only indexes are damaged: stop every process using the file, back it up, then run `sqlite3 FILE "REINDEX"` and `hyphae doctor --deep` again'
        : 'restore the file from a backup; never point hyphae at a damaged store',
    };
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    return { name, ok: false, detail, fix: 'restore the file from a backup; never point hyphae at a damaged store' };
  } finally {
    db?.close();
  }
}

/** The deep checks of a valid config: one `integrity_check` item per SQLite file it names. */
export async function runDeepChecks(settings: ConfigSettings, timeoutMs: number): Promise<DoctorItem[]> {
  const items: DoctorItem[] = [];
  for (const file of sqliteFiles(settings)) items.push(await checkIntegrity(file, timeoutMs));
  return items;
}
