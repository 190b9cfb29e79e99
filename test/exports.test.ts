/**
 * Each entry of package.json `exports` exports exactly the names of its checked-in list
 * (test/exports/<entry>.txt), so every change of the public surface is a visible diff in review.
 * After a deliberate change: `node scripts/export-list.mjs --write`.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { exportList, listFileOf, packageEntries } from '../scripts/export-list.mjs';

const ROOT = join(import.meta.dirname, '..');
const ENTRIES = packageEntries();

describe('the public surface of each entry', () => {
  it('covers every module entry of package.json', () => {
    expect(ENTRIES.map(([subpath]) => subpath)).toContain('.');
    expect(ENTRIES.length).toBeGreaterThan(10);
  });

  it.each(ENTRIES)('%s exports the names of its list', (subpath, source) => {
    const pinned = readFileSync(join(ROOT, 'test', 'exports', listFileOf(subpath)), 'utf8');

    expect(exportList(source)).toBe(pinned);
  });

  it.each(ENTRIES)('%s: the values of its list are the values the module exports', async (subpath, source) => {
    const pinned = readFileSync(join(ROOT, 'test', 'exports', listFileOf(subpath)), 'utf8');
    const values = pinned
      .split('\n')
      .filter((line) => line.startsWith('value '))
      .map((line) => line.slice('value '.length));

    const module: Record<string, unknown> = await import(join(ROOT, source));

    expect(Object.keys(module).sort()).toEqual([...values].sort());
  });
});
