#!/usr/bin/env node
/**
 * The names each entry of the package exports, read from its source: `value name` or `type name`
 * per line, sorted. The lists are checked in under test/exports/ (one file per entry), so a change
 * of the public surface is a visible diff in review; test/exports.test.ts compares them.
 *
 *   node scripts/export-list.mjs           print every entry's list
 *   node scripts/export-list.mjs --write   rewrite test/exports/*.txt
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The module entries of package.json `exports`: `[subpath, source file]`, the source under src/. */
export function packageEntries(root = ROOT) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const out = [];
  for (const [subpath, target] of Object.entries(pkg.exports)) {
    if (typeof target === 'string') continue;
    const source = target.default.replace(/^\.\/dist\//u, 'src/').replace(/\.js$/u, '.ts');
    out.push([subpath, source]);
  }
  return out;
}

/** The file name of an entry's checked-in list: `.` → `root.txt`, `./sqlite` → `sqlite.txt`. */
export function listFileOf(subpath) {
  return `${subpath === '.' ? 'root' : subpath.slice(2).replaceAll('/', '-')}.txt`;
}

const DECLARATION =
  /^export\s+(?:declare\s+)?(?:async\s+)?(const|let|var|function\*?|class|abstract\s+class|interface|type|enum)\s+([A-Za-z_$][\w$]*)/gmu;
const NAMED = /^export\s+(type\s+)?\{([^}]*)\}(?:\s+from\s+['"]([^'"]+)['"])?/gmu;
const STAR = /^export\s+(type\s+)?\*\s+from\s+['"]([^'"]+)['"]/gmu;

/** The exports of the module at `file` (absolute), as a Map name → `value` | `type`. */
export function exportsOf(file, seen = new Set()) {
  const names = new Map();
  if (seen.has(file)) return names;
  seen.add(file);
  const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//gu, '');
  const add = (name, kind) => {
    // A name that is both (a status object and its union type) counts as a value.
    if (names.get(name) !== 'value') names.set(name, kind);
  };
  for (const match of text.matchAll(DECLARATION)) {
    const kind = /^(interface|type)$/u.test(match[1]) ? 'type' : 'value';
    add(match[2], kind);
  }
  for (const match of text.matchAll(NAMED)) {
    const allTypes = match[1] !== undefined;
    const target = match[3] === undefined ? null : resolveSpecifier(file, match[3]);
    const inner = target === null ? null : exportsOf(target, new Set(seen));
    for (const part of match[2].split(',')) {
      const item = part.trim();
      if (item === '') continue;
      const typeOnly = allTypes || item.startsWith('type ');
      const [original, alias] = item.replace(/^type\s+/u, '').split(/\s+as\s+/u);
      const name = (alias ?? original).trim();
      const kindThere = inner?.get(original.trim());
      add(name, typeOnly ? 'type' : (kindThere ?? 'value'));
    }
  }
  for (const match of text.matchAll(STAR)) {
    const target = resolveSpecifier(file, match[2]);
    for (const [name, kind] of exportsOf(target, new Set(seen))) add(name, match[1] === undefined ? kind : 'type');
  }
  return names;
}

function resolveSpecifier(from, specifier) {
  return resolve(dirname(from), specifier.replace(/\.js$/u, '.ts'));
}

/** The checked-in form of an entry's list: `value name` / `type name` lines, sorted by name. */
export function exportList(source, root = ROOT) {
  const names = exportsOf(resolve(root, source));
  return [...names]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, kind]) => `${kind} ${name}`)
    .join('\n')
    .concat('\n');
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const write = process.argv.includes('--write');
  const dir = join(ROOT, 'test', 'exports');
  if (write) mkdirSync(dir, { recursive: true });
  for (const [subpath, source] of packageEntries()) {
    const list = exportList(source);
    if (write) writeFileSync(join(dir, listFileOf(subpath)), list);
    const counts = list.split('\n').filter(Boolean);
    const values = counts.filter((line) => line.startsWith('value ')).length;
    const where = relative(ROOT, join(dir, listFileOf(subpath)))
      .split(sep)
      .join('/');
    console.log(
      `${subpath}: ${counts.length} names (${values} values, ${counts.length - values} types) ${write ? `-> ${where}` : ''}`,
    );
  }
}
