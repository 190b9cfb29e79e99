/**
 * Damage done to a SQLite ledger file from outside, as a disk or a bad copy would: an index entry
 * flipped so that SQLite's `quick_check` still passes and only `integrity_check` sees it.
 */
import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync, readSync, writeSync } from 'node:fs';
import Database from 'better-sqlite3';
import { encodeRecord } from '../../src/storage/record-codec.js';
import { insertParams } from '../../src/storage/sqlite/transition-rows.js';
import { makeTestRecord } from '../../src/testing/index.js';

/** The automatic index of each unique column of the transitions table, and the key's second index. */
const INDEXES = {
  key: 'sqlite_autoindex_hyphae_transitions_1',
  ticket: 'sqlite_autoindex_hyphae_transitions_2',
  witness: 'hyphae_transitions_key_witness_idx',
};

/** An index of the transitions table that the stores look records up through. */
export type LookupIndex = keyof typeof INDEXES;

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

function indexPages(file: string, index: LookupIndex): { pageSize: number; pages: DamagedEntry[] } {
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
export function interiorEntry(file: string, index: LookupIndex): string {
  const db = new Database(file, { readonly: true });
  const column = index === 'ticket' ? 'ticket_key' : 'key';
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

/** One byte of the file to overwrite, and where it lies. */
export interface IndexDamage extends DamagedEntry {
  /** Offset of the byte in the file. */
  readonly position: number;
  /** What the byte becomes. */
  readonly byte: number;
}

/**
 * Where to damage the entry of `value` in `index`, on whichever page of that index holds it:
 * `at` 'value' flips one bit of the value's text, so a lookup misses it; 'rowid' points it at row
 * `rowid` (a row stored in one byte). Reads the file through SQLite, so call it while no store of
 * the other driver has the file open; {@link applyDamage} then writes the byte with plain file I/O.
 */
export function locateIndexDamage(
  file: string,
  index: LookupIndex,
  value: string,
  at: 'value' | { rowid: number } = 'value',
): IndexDamage {
  const { pageSize, pages } = indexPages(file, index);
  const bytes = readFileSync(file);
  const needle = Buffer.from(value, 'utf8');
  for (const entry of pages) {
    const start = (entry.page - 1) * pageSize;
    const offset = liveOffset(bytes.subarray(start, start + pageSize), needle);
    if (offset < 0) continue;
    // An index cell is [value text, rowid]; on a leaf the rowid's byte follows the value.
    const position = start + offset + (at === 'value' ? 10 : value.length);
    return { ...entry, position, byte: at === 'value' ? (bytes[position] ?? 0) ^ 0x01 : at.rowid };
  }
  assert.fail(`\`${value}\` not found in the ${index} index`);
}

/** Overwrite the byte of `damage` in place, as a disk or a bad copy would (no SQLite involved). */
export function applyDamage(file: string, damage: IndexDamage): DamagedEntry {
  const fd = openSync(file, 'r+');
  try {
    const current = Buffer.alloc(1);
    readSync(fd, current, 0, 1, damage.position);
    assert.notEqual(current[0], damage.byte, 'the byte already holds the damage');
    writeSync(fd, Buffer.from([damage.byte]), 0, 1, damage.position);
  } finally {
    closeSync(fd);
  }
  return { page: damage.page, pageType: damage.pageType };
}

/**
 * Damage the entry of `value` in `index` (key, ticket or the key's second index): see
 * {@link locateIndexDamage} for `at`.
 */
export function damageIndexEntry(
  file: string,
  index: LookupIndex,
  value: string,
  at: 'value' | { rowid: number } = 'value',
): DamagedEntry {
  return applyDamage(file, locateIndexDamage(file, index, value, at));
}

/** Damage the entry of `key` in the key index: the first form of {@link damageIndexEntry}. */
export function damageKeyIndex(file: string, key: string, at: 'key' | { rowid: number }): void {
  damageIndexEntry(file, 'key', key, at === 'key' ? 'value' : at);
}
