/**
 * Checks a whole patch before any operation runs: its shape, its pointers, its values and its
 * limits. A patch is refused as a whole, so a bad operation 7 never leaves operations 0–6 half done.
 */

import type { JsonValue } from '../../core/json.js';
import { JsonPatchError } from './json-patch-error.js';
import type { JsonPatchLimits } from './json-patch-limits.js';
import { PointerSyntaxError, pointerTokens } from './json-pointer.js';
import { type JsonSize, measureJson, stringBytes } from './json-size.js';
import { walkError } from './walk-error.js';

/** The six RFC 6902 operations. */
export type JsonPatchOperationName = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

/** One RFC 6902 operation, as a model or an application writes it. */
export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: JsonValue }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

/** An operation that passed every check, with its pointers parsed and its value measured. */
export interface ParsedOperation {
  readonly index: number;
  readonly op: JsonPatchOperationName;
  /** The operation as given (for errors). */
  readonly raw: unknown;
  readonly path: string;
  readonly pathTokens: readonly string[];
  readonly fromTokens: readonly string[] | null;
  /** The value of `add`, `replace` and `test`. */
  readonly value: JsonValue | undefined;
  readonly valueBytes: number;
  /** Containers on the value's deepest path. */
  readonly valueNesting: number;
}

const NEEDS_VALUE: Readonly<Record<JsonPatchOperationName, boolean>> = {
  add: true,
  remove: false,
  replace: true,
  move: false,
  copy: false,
  test: true,
};

function isOperationName(value: unknown): value is JsonPatchOperationName {
  return typeof value === 'string' && Object.hasOwn(NEEDS_VALUE, value);
}

function isPlainObject(value: unknown): value is Readonly<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

function isProperPrefix(shorter: readonly string[], longer: readonly string[]): boolean {
  if (shorter.length >= longer.length) return false;
  for (let i = 0; i < shorter.length; i++) if (shorter[i] !== longer[i]) return false;
  return true;
}

/** Reads one patch: the limits, the bytes counted so far, and the operation being read (for errors). */
class PatchReader {
  readonly limits: JsonPatchLimits;
  patchBytes: number;
  index = 0;
  raw: unknown = null;

  constructor(limits: JsonPatchLimits, patchBytes: number) {
    this.limits = limits;
    this.patchBytes = patchBytes;
  }

  refuse(code: 'invalid_patch' | 'invalid_pointer', reason: string): JsonPatchError {
    return new JsonPatchError({ code, reason, operationIndex: this.index, operation: this.raw });
  }

  tokens(member: 'path' | 'from', pointer: string): string[] {
    let tokens: string[];
    try {
      tokens = pointerTokens(pointer);
    } catch (error) {
      if (error instanceof PointerSyntaxError) throw this.refuse('invalid_pointer', `\`${member}\`: ${error.reason}`);
      throw error;
    }
    const maxDepth = this.limits.maxPointerDepth;
    if (tokens.length > maxDepth) {
      throw new JsonPatchError({
        code: 'limit_exceeded',
        limit: 'maxPointerDepth',
        reason: `\`${member}\` has ${tokens.length} tokens, more than \`maxPointerDepth\` (${maxDepth})`,
        operationIndex: this.index,
        operation: this.raw,
      });
    }
    return tokens;
  }

  /** Size of one member's value, within what is left of `maxPatchBytes`; `value` within `maxValueBytes` too. */
  measure(member: string, value: unknown): JsonSize {
    const limits = this.limits;
    const patchLeft = limits.maxPatchBytes - this.patchBytes;
    const isValue = member === 'value';
    const valueIsTighter = isValue && limits.maxValueBytes <= patchLeft;
    try {
      return measureJson(value, valueIsTighter ? limits.maxValueBytes : patchLeft, limits.maxNestingDepth);
    } catch (error) {
      throw walkError(
        error,
        {
          root: value,
          label: isValue ? '`value`' : `member \`${member.slice(0, 64)}\``,
          sizeLimit: valueIsTighter ? 'maxValueBytes' : 'maxPatchBytes',
          cap: valueIsTighter ? limits.maxValueBytes : limits.maxPatchBytes,
          operationIndex: this.index,
          operation: this.raw,
        },
        limits,
      );
    }
  }

  /** Count `bytes` more of the patch; throws once past `maxPatchBytes`. */
  count(bytes: number): void {
    this.patchBytes += bytes;
    if (this.patchBytes > this.limits.maxPatchBytes) {
      throw new JsonPatchError({
        code: 'limit_exceeded',
        limit: 'maxPatchBytes',
        reason: `the patch exceeds \`maxPatchBytes\` (${this.limits.maxPatchBytes} bytes of canonical JSON)`,
        operationIndex: this.index,
        operation: this.raw,
      });
    }
  }
}

function readOperation(reader: PatchReader, raw: unknown, index: number): ParsedOperation {
  reader.index = index;
  reader.raw = raw;
  if (!isPlainObject(raw)) throw reader.refuse('invalid_patch', 'an operation must be a JSON object');
  const op = Object.hasOwn(raw, 'op') ? raw.op : undefined;
  if (!isOperationName(op)) {
    const shown = typeof op === 'string' ? `\`${op.slice(0, 64)}\`` : op === undefined ? 'missing' : typeof op;
    throw reader.refuse(
      'invalid_patch',
      `\`op\` is ${shown}; it must be one of \`add\`, \`remove\`, \`replace\`, \`move\`, \`copy\`, \`test\``,
    );
  }
  const path = Object.hasOwn(raw, 'path') ? raw.path : undefined;
  if (typeof path !== 'string') throw reader.refuse('invalid_patch', '`path` must be a string (a JSON Pointer)');
  const from = Object.hasOwn(raw, 'from') ? raw.from : undefined;
  const needsFrom = op === 'move' || op === 'copy';
  if (needsFrom && typeof from !== 'string') {
    throw reader.refuse('invalid_patch', `\`${op}\` needs a \`from\` member holding a JSON Pointer string`);
  }
  const hasValue = Object.hasOwn(raw, 'value') && raw.value !== undefined;
  if (NEEDS_VALUE[op] && !hasValue) throw reader.refuse('invalid_patch', `\`${op}\` needs a \`value\` member`);

  // Sizes before pointers: a pointer is split only once its bytes are known to fit the patch.
  // Bytes of `{"k":v,…}`: braces and commas, then each key, its colon and its value.
  const keys = Object.keys(raw);
  reader.count(keys.length === 0 ? 2 : keys.length + 1);
  let valueSize: JsonSize | null = null;
  for (const key of keys) {
    const member = raw[key];
    reader.count(stringBytes(key) + 1);
    if (typeof member === 'string' && key !== 'value') {
      reader.count(stringBytes(member));
    } else {
      const size = reader.measure(key, member);
      if (key === 'value') valueSize = size;
      reader.count(size.bytes);
    }
  }

  const pathTokens = reader.tokens('path', path);
  let fromTokens: string[] | null = null;
  if (needsFrom) {
    fromTokens = reader.tokens('from', from as string);
    // RFC 6902 §4.4: a value cannot move into its own child. `copy` may (it copies first).
    if (op === 'move' && isProperPrefix(fromTokens, pathTokens)) {
      throw reader.refuse(
        'invalid_patch',
        'cannot move a value into its own child (`from` is a proper prefix of `path`)',
      );
    }
  }
  return {
    index,
    op,
    raw,
    path,
    pathTokens,
    fromTokens,
    value: hasValue ? (raw.value as JsonValue) : undefined,
    valueBytes: valueSize === null ? 0 : valueSize.bytes,
    valueNesting: valueSize === null ? 0 : valueSize.nesting,
  };
}

/**
 * `error` when it is a {@link JsonPatchError}; anything else was thrown by the caller's value (a
 * getter or Proxy trap) and becomes `non_json_value`, naming `what` and the operation.
 */
export function unreadable(error: unknown, what: string, operationIndex: number | null): unknown {
  if (error instanceof JsonPatchError) return error;
  const detail = error instanceof Error ? `: ${error.message.slice(0, 200)}` : '';
  return new JsonPatchError({
    code: 'non_json_value',
    reason: `${what} cannot be read (a getter or Proxy trap threw${detail})`,
    operationIndex,
    cause: error,
  });
}

/** Check `patch` as a whole; throws {@link JsonPatchError} naming the first operation at fault. */
export function parsePatch(patch: unknown, limits: JsonPatchLimits): ParsedOperation[] {
  if (!Array.isArray(patch)) {
    throw new JsonPatchError({ code: 'invalid_patch', reason: 'a patch must be a JSON array of operations' });
  }
  const count = patch.length;
  if (count > limits.maxOperations) {
    throw new JsonPatchError({
      code: 'limit_exceeded',
      limit: 'maxOperations',
      reason: `the patch has ${count} operations, more than \`maxOperations\` (${limits.maxOperations})`,
    });
  }
  const reader = new PatchReader(limits, count === 0 ? 2 : count + 1);
  const operations: ParsedOperation[] = new Array(count);
  for (let i = 0; i < count; i++) {
    try {
      operations[i] = readOperation(reader, patch[i], i);
    } catch (error) {
      throw unreadable(error, 'the operation', i);
    }
  }
  return operations;
}
