/**
 * Positions in a YAML document: from a key path to the line and column of a key or value.
 */
import {
  type Document,
  isAlias,
  isMap,
  isPair,
  isScalar,
  isSeq,
  type LineCounter,
  type Node,
  type Pair,
  type YAMLMap,
} from 'yaml';
import type { ConfigPathSegment } from './schema/nodes.js';

/** A 1-based line and column. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/** What a path points at: the value, its mapping key, or the mapping that should hold it. */
export type PositionTarget = 'key' | 'value' | 'parent';

interface Step {
  readonly key: Node | null;
  readonly value: Node | null;
}

function keyText(node: unknown): unknown {
  return isScalar(node) ? node.value : node;
}

function resolve(document: Document, node: unknown): Node | null {
  if (isAlias(node)) return (node.resolve(document) as Node | undefined) ?? null;
  return (node as Node | null | undefined) ?? null;
}

// A key's pair, by map: built once per map, so placing k issues in a map of n keys stays O(n + k).
const pairsByMap = new WeakMap<object, Map<string, Pair<unknown, unknown>>>();

function pairOf(map: YAMLMap<unknown, unknown>, segment: ConfigPathSegment): Pair<unknown, unknown> | undefined {
  let pairs = pairsByMap.get(map);
  if (pairs === undefined) {
    pairs = new Map();
    for (const item of map.items) {
      const text = String(keyText(item.key));
      if (isPair(item) && !pairs.has(text)) pairs.set(text, item);
    }
    pairsByMap.set(map, pairs);
  }
  return pairs.get(String(segment));
}

/** The steps from the root to `path`, as far as the document has them. */
function walk(document: Document, path: readonly ConfigPathSegment[]): Step[] {
  const steps: Step[] = [{ key: null, value: resolve(document, document.contents) }];
  let current = steps[0]?.value ?? null;
  for (const segment of path) {
    let step: Step | undefined;
    if (isMap(current)) {
      const pair = pairOf(current, segment);
      if (pair !== undefined) step = { key: (pair.key as Node | null) ?? null, value: resolve(document, pair.value) };
    } else if (isSeq(current) && typeof segment === 'number') {
      const item = current.items[segment];
      if (item !== undefined) step = { key: null, value: resolve(document, item) };
    }
    if (step === undefined) break;
    steps.push(step);
    current = step.value;
  }
  return steps;
}

function startOf(node: Node | null): number | undefined {
  return node?.range?.[0];
}

/** The offset `target` of `path` points at; missing parts fall back to the nearest ancestor. */
function offsetOf(document: Document, path: readonly ConfigPathSegment[], target: PositionTarget): number {
  const steps = walk(document, path);
  const found = steps.length === path.length + 1;
  const last = steps[steps.length - 1];
  if (found && last !== undefined) {
    const preferred =
      target === 'key' ? (startOf(last.key) ?? startOf(last.value)) : (startOf(last.value) ?? startOf(last.key));
    if (preferred !== undefined) return preferred;
  }
  // A missing key is shown at the key of the mapping that should hold it (`transition:`).
  for (let i = steps.length - 1; i >= 0; i--) {
    const step = steps[i];
    const offset = startOf(step?.key ?? null) ?? startOf(step?.value ?? null);
    if (offset !== undefined) return offset;
  }
  return 0;
}

/** The line and column of what `path` points at. */
export function locate(
  document: Document,
  lines: LineCounter,
  path: readonly ConfigPathSegment[],
  target: PositionTarget,
): Position {
  const { line, col } = lines.linePos(offsetOf(document, path, target));
  return { line, column: col };
}

const PLAIN_KEY = /^[A-Za-z_$][A-Za-z0-9_$-]*$/u;

/**
 * A path as people write it: `tools.send_payment.side_effect_class`, `action_ledger.tools[1]`,
 * `tools["mcp.search"]`.
 */
export function formatPath(path: readonly ConfigPathSegment[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else if (PLAIN_KEY.test(segment)) out += out === '' ? segment : `.${segment}`;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out;
}
