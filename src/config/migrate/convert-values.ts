/**
 * Unit conversions and store conversions of a mycelium-runtime config.
 *
 * mycelium-runtime gives durations as numbers of seconds (`lease_ttl: 3600`); hyphae refuses a bare
 * number for a duration, so every one is rewritten with its unit (`1h`), never reinterpreted.
 */
import { isMap, isScalar, type Node, type Pair, type YAMLMap } from 'yaml';
import { keyOf, type Migration, pairsOf, plain, removeKey, setKey } from './migration-doc.js';

const UNITS: readonly [number, string][] = [
  [86_400, 'd'],
  [3_600, 'h'],
  [60, 'm'],
  [1, 's'],
];

/** A number of seconds as a hyphae duration: the largest unit that divides it, else milliseconds. */
export function secondsToDuration(seconds: number): string {
  for (const [size, unit] of UNITS)
    if (seconds >= size && Number.isInteger(seconds / size)) return `${seconds / size}${unit}`;
  const ms = seconds * 1000;
  return Number.isInteger(ms) ? `${ms}ms` : `${Math.round(ms)}ms`;
}

/**
 * Rewrite the seconds under `key` of `map` as a duration, noting the conversion. A value that is not
 * a number (already a duration text) is left alone. Returns false when the value cannot be carried.
 */
export function convertSeconds(m: Migration, map: YAMLMap, key: string, path: string): boolean {
  const pair = pairsOf(map).find((p) => keyOf(p) === key);
  if (pair === undefined) return true;
  const value = plain(pair.value);
  const seconds =
    typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value) ? Number(value) : null;
  if (seconds === null) return true;
  if (!Number.isFinite(seconds) || seconds <= 0) return false;
  const duration = secondsToDuration(seconds);
  const scalar = pair.value as Node;
  if (isScalar(scalar)) {
    scalar.value = duration;
    scalar.type = 'PLAIN';
  }
  m.note('converted', path, pair.value, `\`${value}\` (seconds in mycelium-runtime) is written \`${duration}\``);
  return true;
}

/** Drop `key` from `map` with the reason, if it is there. */
export function dropKey(m: Migration, map: YAMLMap, key: string, path: string, reason: string): void {
  const pair = pairsOf(map).find((p) => keyOf(p) === key);
  if (pair === undefined) return;
  m.note('dropped', path, pair.key, reason);
  removeKey(map, key);
}

/** Drop every key of `map` not in `keep`, each with the reason `why(key)`. */
export function dropOthers(
  m: Migration,
  map: YAMLMap,
  keep: readonly string[],
  path: string,
  why: (key: string) => string,
): void {
  for (const pair of [...pairsOf(map)]) {
    const key = keyOf(pair);
    if (!keep.includes(key)) dropKey(m, map, key, `${path}.${key}`, why(key));
  }
}

/** `./mycelium-ledger.json` → `./mycelium-ledger.db`. */
function sqlitePathFor(path: string): string {
  return /\.(json|jsonl)$/i.test(path) ? path.replace(/\.(json|jsonl)$/i, '.db') : `${path}.db`;
}

const STORE_KEYS: Readonly<Record<string, readonly string[]>> = {
  memory: ['storage'],
  sqlite: ['storage', 'path'],
  redis: ['storage', 'url', 'url_env'],
  postgres: ['storage', 'dsn', 'dsn_env'],
};

/**
 * Convert the storage keys of a mycelium ledger section in place. `file` (one JSON file rewritten on
 * every write) becomes an SQLite file beside it; its entries are not imported.
 */
export function convertStore(
  m: Migration,
  map: YAMLMap,
  path: string,
  allowed: readonly string[],
  others: readonly string[],
): void {
  const storagePair = pairsOf(map).find((p) => keyOf(p) === 'storage');
  const storage = storagePair === undefined ? 'memory' : String(plain(storagePair.value));
  const original = storagePair?.value;
  if (storagePair === undefined) {
    setKey(m.doc, map, 'storage', 'memory');
    m.note('added', `${path}.storage`, null, 'mycelium-runtime defaults to `memory`; written explicitly');
  }
  if (storage === 'file') {
    const source = String(plain(map.get('path', true) as Node) ?? 'mycelium-ledger.json');
    const target = sqlitePathFor(source);
    setKey(m.doc, map, 'storage', 'sqlite');
    setKey(m.doc, map, 'path', target);
    m.note(
      'converted',
      `${path}.storage`,
      original,
      `\`file\` (one JSON file rewritten on every write) becomes \`sqlite\` at \`${target}\`; the entries of \`${source}\` are not imported — let in-flight work finish first`,
    );
  } else if (!allowed.includes(storage)) {
    m.note('dropped', `${path}.storage`, original, `storage \`${storage}\` has no counterpart here; using \`memory\``);
    setKey(m.doc, map, 'storage', 'memory');
  }
  const kind = String(plain(map.get('storage', true) as Node));
  const keep = [...(STORE_KEYS[kind] ?? ['storage']), ...others];
  dropOthers(m, map, keep, path, (key) => storeKeyReason(key));
}

function storeKeyReason(key: string): string {
  switch (key) {
    case 'prefix':
    case 'table':
      return 'hyphae keeps its own key and table names (`prefix`, `table_prefix`): a new ledger starts beside the old one, whose entries are not imported';
    case 'in_flight_ttl':
      return 'records never expire here; leases decide when an in-flight call may be taken over';
    case 'auto':
      return 'not needed: every ledgered tool and task gets receipts when `receipts` is configured';
    case 'unclassified_policy':
      return 'every ledgered tool declares `side_effect_class` here: a config with an unclassified one does not load';
    case 'memory_storage_policy':
      return 'the production profile (`profile: production`) refuses stores that cannot outlive the process';
    default:
      return 'no counterpart in hyphae.yaml';
  }
}

/** Whether a node is a mapping (narrowed). */
export function isMapping(node: unknown): node is YAMLMap {
  return isMap(node);
}

export type { Pair };
