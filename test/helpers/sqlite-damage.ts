/**
 * Damage done to a SQLite ledger file from outside, as a disk or a bad copy would: an index entry
 * flipped so that SQLite's `quick_check` still passes and only `integrity_check` sees it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';

const KEY_INDEX = 'sqlite_autoindex_hyphae_transitions_1';

/** The pragma's rows, for the checks SQLite itself makes of the file. */
export function checks(file: string): { quick: string; integrity: string } {
  const db = new Database(file);
  try {
    const quick = db.pragma('quick_check', { simple: true }) as string;
    const integrity = db.pragma('integrity_check', { simple: true }) as string;
    return { quick, integrity };
  } finally {
    db.close();
  }
}

/**
 * Damage the entry of `key` in the key index (a leaf page while the ledger is small): `at` 'key'
 * flips one bit of the key's text, so a lookup misses it; 'rowid' points it at row `rowid`.
 */
export function damageKeyIndex(file: string, key: string, at: 'key' | { rowid: number }): void {
  const db = new Database(file);
  const { rootpage } = db.prepare('SELECT rootpage FROM sqlite_master WHERE name = ?').get(KEY_INDEX) as {
    rootpage: number;
  };
  const pageSize = db.pragma('page_size', { simple: true }) as number;
  db.close();
  const bytes = readFileSync(file);
  const page = bytes.subarray((rootpage - 1) * pageSize, rootpage * pageSize);
  const offset = page.indexOf(Buffer.from(key, 'utf8'));
  assert.ok(offset > 0, `key \`${key}\` not found in the index page`);
  // An index cell is [key text, rowid]: the rowid's one byte follows the 64 characters of the key.
  if (at === 'key') page[offset + 10] = (page[offset + 10] ?? 0) ^ 0x01;
  else page[offset + key.length] = at.rowid;
  writeFileSync(file, bytes);
}
