/**
 * RFC 6902 JSON Patch, bounded: every operation, every limit, inputs never written.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { jsonEquals } from './json-equals.js';
import { JsonPatchError } from './json-patch-error.js';
import type { JsonPatchLimits } from './json-patch-limits.js';
import { measureJson, stringBytes } from './json-size.js';
import { type ParsedOperation, parsePatch, unreadable } from './parse-patch.js';
import { walkError } from './walk-error.js';
import { type Target, WorkingDocument } from './working-document.js';

export { jsonEquals } from './json-equals.js';
export { JSON_PATCH_ERROR_CODE, JsonPatchError, type JsonPatchErrorCode } from './json-patch-error.js';
export { DEFAULT_JSON_PATCH_LIMITS, type JsonPatchLimits } from './json-patch-limits.js';
export { formatJsonPointer, getByPointer, parseJsonPointer } from './json-pointer.js';
export type { JsonPatchOperation, JsonPatchOperationName } from './parse-patch.js';

import type { JsonValue } from '../../core/json.js';
import { resolveJsonPatchLimits } from './resolve-json-patch-limits.js';

export type { JsonValue };

/**
 * Upper bounds on the working document's size, kept per operation in O(1) so that the result is
 * measured only when a bound says it might be over a limit.
 *
 * - bytes: `add`/`replace` grow it by the value's bytes (already measured: the value limit needs
 *   them) plus its key and separators; a root `add`/`replace` resets it to the value's bytes;
 *   `remove` leaves it (an upper bound may overestimate); `move` adds the new key; `copy` measures
 *   the copied subtree, capped by the headroom left, and gives up (Infinity) past it.
 * - nesting: a value of nesting n placed under k tokens gives max(bound, k + n); a subtree taken
 *   from under f tokens has nesting at most bound − f.
 */
interface SizeBound {
  bytes: number;
  nesting: number;
}

function placed(bound: SizeBound, tokens: readonly string[], bytes: number, nesting: number): void {
  const last = tokens[tokens.length - 1];
  if (last === undefined) {
    bound.bytes = bytes;
    bound.nesting = nesting;
    return;
  }
  bound.bytes += bytes + stringBytes(last) + 2; // `"key":value,` (or `value,` in an array: smaller)
  bound.nesting = Math.max(bound.nesting, tokens.length + nesting);
}

const PREVIEW_BYTES = 120;

/** What a failed `test` found, when short enough to quote (so a model can correct its patch). */
function preview(value: JsonValue): string {
  try {
    measureJson(value, PREVIEW_BYTES, 8);
  } catch {
    return Array.isArray(value)
      ? 'a longer array'
      : typeof value === 'object' && value !== null
        ? 'a larger object'
        : 'a long string';
  }
  return `\`${canonicalJson(value)}\``;
}

function target(operation: ParsedOperation, member: 'path' | 'from'): Target {
  const tokens = member === 'path' ? operation.pathTokens : (operation.fromTokens as readonly string[]);
  return { operation, member, tokens };
}

function sameTokens(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function copiedBytes(value: JsonValue, bound: SizeBound, limits: JsonPatchLimits): number {
  if (limits.maxDocumentBytes === Number.POSITIVE_INFINITY) return 0;
  const headroom = limits.maxDocumentBytes - bound.bytes;
  if (headroom < 0) return Number.POSITIVE_INFINITY;
  try {
    return measureJson(value, headroom, limits.maxNestingDepth).bytes;
  } catch {
    // Over the headroom (or deeper than the limit): only the final measurement can say by how much.
    return Number.POSITIVE_INFINITY;
  }
}

function applyOperation(
  document: WorkingDocument,
  operation: ParsedOperation,
  bound: SizeBound,
  limits: JsonPatchLimits,
): void {
  const path = target(operation, 'path');
  switch (operation.op) {
    case 'add':
      document.add(path, operation.value as JsonValue);
      placed(bound, path.tokens, operation.valueBytes, operation.valueNesting);
      return;
    case 'replace':
      document.replace(path, operation.value as JsonValue);
      placed(bound, path.tokens, operation.valueBytes, operation.valueNesting);
      return;
    case 'remove':
      document.remove(path);
      return;
    case 'test': {
      const actual = document.read(path);
      if (!jsonEquals(actual, operation.value)) {
        throw new JsonPatchError({
          code: 'test_failed',
          reason: `the value at \`${operation.path.slice(0, 200)}\` is ${preview(actual)}, not equal to \`value\``,
          operationIndex: operation.index,
          operation: operation.raw,
        });
      }
      return;
    }
    case 'move': {
      const from = target(operation, 'from');
      if (sameTokens(from.tokens, path.tokens)) {
        document.read(from);
        return;
      }
      const value = document.remove(from);
      document.add(path, value);
      const nesting = bound.nesting - from.tokens.length;
      placed(bound, path.tokens, path.tokens.length === 0 ? bound.bytes : 0, nesting);
      return;
    }
    case 'copy': {
      const from = target(operation, 'from');
      const value = document.read(from);
      document.forgetOwnership();
      document.add(path, value);
      placed(bound, path.tokens, copiedBytes(value, bound, limits), bound.nesting - from.tokens.length);
      return;
    }
  }
}

/**
 * Apply an RFC 6902 JSON Patch to a JSON document and return the result; neither input is
 * written.
 *
 * The whole patch is checked before any operation runs (shape, pointers, values, the limits on
 * operations, patch bytes, pointer depth, value bytes and nesting), then the document (plain JSON,
 * within `maxDocumentBytes`), then the operations run in order, then the result is held to the
 * document limits. Any failure throws a {@link JsonPatchError} naming the operation and the
 * reason, and nothing is returned: a patch applies completely or not at all. Limits that are not an
 * object are `invalid_limits`; a getter or Proxy trap that throws is `non_json_value`.
 *
 * The result shares every subtree the patch did not touch with `document`, and holds the patch's
 * values by reference: treat all three as immutable (clone the result before writing to it).
 * Cost: one walk of the document up front, then O(pointer depth) container copies per operation.
 *
 * @param limits overrides of {@link DEFAULT_JSON_PATCH_LIMITS}; `Infinity` turns one off
 * @example
 * applyJsonPatch({ items: ['a'] }, [
 *   { op: 'add', path: '/items/-', value: 'b' },
 *   { op: 'test', path: '/items/1', value: 'b' },
 * ]); // { items: ['a', 'b'] }
 */
export function applyJsonPatch(document: unknown, patch: unknown, limits?: Partial<JsonPatchLimits>): JsonValue {
  try {
    return applyChecked(document, patch, limits);
  } catch (error) {
    throw unreadable(error, 'the document or the patch', null);
  }
}

function applyChecked(document: unknown, patch: unknown, limits: Partial<JsonPatchLimits> | undefined): JsonValue {
  const resolved = resolveJsonPatchLimits(limits);
  const operations = parsePatch(patch, resolved);
  const bound: SizeBound = measure(document, resolved, 'the document');
  const working = new WorkingDocument(document as JsonValue);
  for (const operation of operations) applyOperation(working, operation, bound, resolved);
  if (bound.bytes > resolved.maxDocumentBytes || bound.nesting > resolved.maxNestingDepth) {
    measure(working.root, resolved, 'the result');
  }
  return working.root;
}

function measure(value: unknown, limits: JsonPatchLimits, label: string): SizeBound {
  try {
    const size = measureJson(value, limits.maxDocumentBytes, limits.maxNestingDepth);
    return { bytes: size.bytes, nesting: size.nesting };
  } catch (error) {
    throw walkError(
      error,
      {
        root: value,
        label,
        sizeLimit: 'maxDocumentBytes',
        cap: limits.maxDocumentBytes,
        operationIndex: null,
        operation: null,
      },
      limits,
    );
  }
}
