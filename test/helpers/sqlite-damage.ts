/**
 * Damage done to a SQLite ledger file from outside, as a disk or a bad copy would: an index entry
 * flipped so that SQLite's `quick_check` still passes and only `integrity_check` sees it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { encodeRecord } from '../../src/storage/record-codec.js';
import { insertParams } from '../../src/storage/sqlite/transition-rows.js';
import { makeTestRecord } from '../../src/testing/index.js';

/** The automatic index of each unique column of the transitions table. */
const INDEXES = { key: 'sqlite_autoindex_hyphae_transitions_1', ticket: 'sqlite_autoindex_hyphae_transitions_2' };

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

/** Write `count` records straight into the table, so that its indexes span several pages. */
export function addRecords(file: string, count: number): void {
  const db = new Database(file);
  try {
    const insert = db.prepare(
      'INSERT INTO hyphae_transitions (key, ticket_key, tool, kind, outcome, updated_at, version, doc) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
    );
    db.transaction(() => {
      for (let i = 0; i < count; i += 1) {
        const record = makeTestRecord({ outcome: 'COMPLETED', version: 2, result: { filler: i } });
        insert.run(...insertParams(record, encodeRecord(record)));
      }
    })();
  } finally {
    db.close();
  }
}

/** Where a damaged entry was: its page and whether that page is a leaf or an interior page. */
export interface DamagedEntry {
  readonly page: number;
  readonly pageType: 'leaf' | 'internal';
}

function indexPages(file: string, index: 'key' | 'ticket'): { pageSize: number; pages: DamagedEntry[] } {
  const db = new Database(file);
  try {
    const pageSize = db.pragma('page_size', { simple: true }) as number;
    const rows = db
      .prepare('SELECT pageno AS page, pagetype AS pageType FROM dbstat WHERE name = ? ORDER BY pageno')
      .all(INDEXES[index]) as DamagedEntry[];
    return { pageSize, pages: rows };
  } finally {
    db.close();
  }
}

/**
 * Where `needle` starts inside a live cell of an index page, or -1. A page also holds stale bytes
 * (cells moved away by a split, freed space), which no lookup reads: damage there changes nothing.
 */
function liveOffset(content: Buffer, needle: Buffer): number {
  const interior = content[0] === 0x02;
  const header = interior ? 12 : 8;
  const cells = content.readUInt16BE(3);
  for (let cell = 0; cell < cells; cell += 1) {
    const start = content.readUInt16BE(header + 2 * cell);
    // [left child (interior only)] [payload size varint] [record header] [value text] [rowid]
    const from = start + (interior ? 4 : 0);
    const offset = content.subarray(from, from + 16 + needle.length).indexOf(needle);
    if (offset >= 0) return from + offset;
  }
  return -1;
}

/** A value stored in a cell of an interior page of `index` (which must span several pages). */
export function interiorEntry(file: string, index: 'key' | 'ticket'): string {
  const db = new Database(file, { readonly: true });
  const column = index === 'key' ? 'key' : 'ticket_key';
  const values = db
    .prepare(`SELECT ${column} AS value FROM hyphae_transitions WHERE ${column} IS NOT NULL`)
    .pluck()
    .all() as string[];
  db.close();
  const { pageSize, pages } = indexPages(file, index);
  const bytes = readFileSync(file);
  for (const { page, pageType } of pages) {
    if (pageType !== 'internal') continue;
    const content = bytes.subarray((page - 1) * pageSize, page * pageSize);
    const found = values.find((value) => liveOffset(content, Buffer.from(value, 'utf8')) >= 0);
    if (found !== undefined) return found;
  }
  assert.fail(`no interior page of the ${index} index holds an entry`);
}

/**
 * Damage the entry of `value` in the `index` (key or ticket) index, on whichever page of that index
 * holds it: `at` 'value' flips one bit of the value's text, so a lookup misses it; 'rowid' points
 * it at row `rowid` (a row stored in one byte).
 */
export function damageIndexEntry(
  file: string,
  index: 'key' | 'ticket',
  value: string,
  at: 'value' | { rowid: number } = 'value',
): DamagedEntry {
  const { pageSize, pages } = indexPages(file, index);
  const bytes = readFileSync(file);
  const needle = Buffer.from(value, 'utf8');
  for (const entry of pages) {
    const content = bytes.subarray((entry.page - 1) * pageSize, entry.page * pageSize);
    const offset = liveOffset(content, needle);
    if (offset < 0) continue;
    // An index cell is [value text, rowid]; on a leaf the rowid's byte follows the value.
    if (at === 'value') content[offset + 10] = (content[offset + 10] ?? 0) ^ 0x01;
    else content[offset + value.length] = at.rowid;
    writeFileSync(file, bytes);
    return entry;
  }
  assert.fail(`\`${value}\` not found in the ${index} index`);
}

/** Damage the entry of `key` in the key index: the first form of {@link damageIndexEntry}. */
export function damageKeyIndex(file: string, key: string, at: 'key' | { rowid: number }): void {
  damageIndexEntry(file, 'key', key, at === 'key' ? 'value' : at);
}
