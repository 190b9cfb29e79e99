/**
 * The YAML document a migration edits in place, so every comment on a key that survives stays on
 * it, and the notes it collects: each unit it converted and each key it could not carry, with where
 * the key was and why.
 */
import { type Document, isMap, isScalar, isSeq, LineCounter, type Node, Pair, type Scalar, YAMLMap } from 'yaml';

/** What a migration did with one key. */
export interface MigrationNote {
  /** The key path in the source file, `tools.fetch_customer.protect.ttl`. */
  readonly path: string;
  /** 1-based line in the source file; 0 when the key was added. */
  readonly line: number;
  /** `converted`: carried with a change of unit or name; `dropped`: not carried; `added`: a key hyphae needs. */
  readonly kind: 'converted' | 'dropped' | 'added';
  readonly message: string;
}

/** The document being converted and the notes about it. */
export interface Migration {
  readonly doc: Document;
  readonly notes: MigrationNote[];
  /** The first per-tool (legacy style) store of each ledger, as plain data, for a ledger section made from it. */
  readonly perToolStores: { tool?: Record<string, unknown>; task?: Record<string, unknown> };
  lineOf(node: unknown): number;
  note(kind: MigrationNote['kind'], path: string, node: unknown, message: string): void;
}

/** Start a migration of `doc`, whose source positions `lines` counts. */
export function startMigration(doc: Document, lines: LineCounter): Migration {
  const notes: MigrationNote[] = [];
  const lineOf = (node: unknown): number => {
    const range = (node as { range?: [number, number, number] } | null)?.range;
    return range === undefined ? 0 : lines.linePos(range[0]).line;
  };
  return {
    doc,
    notes,
    perToolStores: {},
    lineOf,
    note(kind, path, node, message) {
      notes.push({ path, line: lineOf(node), kind, message });
    },
  };
}

export { LineCounter };

/** The key of a pair as text. */
export function keyOf(pair: Pair): string {
  return isScalar(pair.key) ? String(pair.key.value) : String(pair.key);
}

/** The pairs of a mapping node, or none. */
export function pairsOf(node: unknown): Pair[] {
  return isMap(node) ? (node.items as Pair[]) : [];
}

/** The value node under `key` in a mapping, or undefined. */
export function valueAt(map: unknown, key: string): Node | undefined {
  const pair = pairsOf(map).find((p) => keyOf(p) === key);
  return (pair?.value ?? undefined) as Node | undefined;
}

/** The plain value of a scalar node (or of a flow sequence of scalars), else undefined. */
export function plain(node: unknown): unknown {
  if (isScalar(node)) return node.value;
  if (isSeq(node)) return node.items.map((item) => (isScalar(item) ? item.value : undefined));
  return undefined;
}

/** Rename a pair's key in place (its comments stay). */
export function renameKey(pair: Pair, key: string): void {
  if (isScalar(pair.key)) (pair.key as Scalar).value = key;
  else pair.key = key;
}

/** Remove the pair `key` from `map`; returns it. */
export function removeKey(map: YAMLMap, key: string): Pair | undefined {
  const index = (map.items as Pair[]).findIndex((p) => keyOf(p) === key);
  if (index < 0) return undefined;
  return (map.items as Pair[]).splice(index, 1)[0];
}

/** Set `key` in `map` to a value built from plain data, replacing an existing pair's value in place. */
export function setKey(doc: Document, map: YAMLMap, key: string, value: unknown, comment?: string): Node {
  const node = doc.createNode(value) as Node;
  if (comment !== undefined) (node as { comment?: string }).comment = ` ${comment}`;
  const existing = (map.items as Pair[]).find((p) => keyOf(p) === key);
  if (existing !== undefined) existing.value = node;
  else map.items.push(new Pair(doc.createNode(key), node));
  return node;
}

/** A new empty mapping node. */
export function newMap(): YAMLMap {
  return new YAMLMap();
}
