/**
 * Duplicate mapping keys, found in one pass over a parsed YAML document.
 *
 * The `yaml` package's own `uniqueKeys` check compares each new key with every key before it in
 * its map: quadratic in the size of a map, so a config with 400k tools would not finish parsing.
 * A set per map keeps the same rule (equal scalar values are duplicates) linear.
 */
import { type Document, isMap, isScalar, type Node, visit } from 'yaml';

/** One repeated key: its text and the offset where the repetition starts. */
export interface DuplicateKey {
  readonly key: string;
  readonly offset: number;
}

/** Every key that repeats an earlier key of the same mapping, in document order. */
export function findDuplicateKeys(document: Document): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  visit(document, {
    Map(_, map) {
      if (!isMap(map) || map.items.length < 2) return;
      const seen = new Set<unknown>();
      for (const pair of map.items) {
        const key = pair.key as Node | null;
        if (!isScalar(key)) continue;
        if (seen.has(key.value)) found.push({ key: String(key.value), offset: key.range?.[0] ?? 0 });
        else seen.add(key.value);
      }
    },
  });
  return found;
}
