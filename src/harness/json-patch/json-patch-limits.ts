/**
 * The bounds `applyJsonPatch` enforces. Sizes are bytes of canonical (RFC 8785) UTF-8 JSON.
 */
import { JsonPatchError } from './json-patch-error.js';

/**
 * Bounds on one `applyJsonPatch` call. Every limit is a non-negative integer, or `Infinity` to
 * turn it off.
 */
export interface JsonPatchLimits {
  /** Operations in the patch. */
  readonly maxOperations: number;
  /** Canonical UTF-8 bytes of the whole patch (every member of every operation). */
  readonly maxPatchBytes: number;
  /** Reference tokens in a `path` or `from` pointer. */
  readonly maxPointerDepth: number;
  /** Canonical UTF-8 bytes of one operation's `value`. */
  readonly maxValueBytes: number;
  /** Canonical UTF-8 bytes of the input document, and of the result. */
  readonly maxDocumentBytes: number;
  /** Nesting of arrays and objects in the document and in each value (keeps recursion off the stack limit). */
  readonly maxNestingDepth: number;
}

/** The limits used for every field a caller leaves out. */
export const DEFAULT_JSON_PATCH_LIMITS: Readonly<JsonPatchLimits> = Object.freeze({
  maxOperations: 1_000,
  maxPatchBytes: 1_048_576,
  maxPointerDepth: 64,
  maxValueBytes: 262_144,
  maxDocumentBytes: 8_388_608,
  maxNestingDepth: 256,
});

/** Above this, one recursive walk frame per level could overflow Node's default stack. */
const NESTING_CEILING = 2_000;

function pick(limits: Partial<JsonPatchLimits>, name: keyof JsonPatchLimits): number {
  let value: unknown;
  try {
    value = limits[name];
  } catch (cause) {
    throw new JsonPatchError({
      code: 'invalid_limits',
      reason: `limit \`${name}\` cannot be read`,
      limit: name,
      cause,
    });
  }
  if (value === undefined) return DEFAULT_JSON_PATCH_LIMITS[name];
  if (
    typeof value === 'number' &&
    (value === Number.POSITIVE_INFINITY || (Number.isSafeInteger(value) && value >= 0))
  ) {
    return value;
  }
  throw new JsonPatchError({
    code: 'invalid_limits',
    reason: `limit \`${name}\` must be a non-negative integer or Infinity, got \`${String(value)}\``,
    limit: name,
  });
}

/** Merge `limits` over the defaults and check every value is enforceable. */
export function resolveJsonPatchLimits(limits: Partial<JsonPatchLimits> | undefined): JsonPatchLimits {
  if (limits === undefined) return DEFAULT_JSON_PATCH_LIMITS;
  if (typeof limits !== 'object' || limits === null || Array.isArray(limits)) {
    const got = limits === null ? '`null`' : Array.isArray(limits) ? 'an array' : `a ${typeof limits}`;
    throw new JsonPatchError({ code: 'invalid_limits', reason: `the limits must be an object or omitted, got ${got}` });
  }
  // Field by field, no loop: this runs on every call, and small patches should not pay for it.
  const resolved: JsonPatchLimits = {
    maxOperations: pick(limits, 'maxOperations'),
    maxPatchBytes: pick(limits, 'maxPatchBytes'),
    maxPointerDepth: pick(limits, 'maxPointerDepth'),
    maxValueBytes: pick(limits, 'maxValueBytes'),
    maxDocumentBytes: pick(limits, 'maxDocumentBytes'),
    maxNestingDepth: pick(limits, 'maxNestingDepth'),
  };
  if (resolved.maxNestingDepth > NESTING_CEILING) {
    throw new JsonPatchError({
      code: 'invalid_limits',
      reason: `limit \`maxNestingDepth\` must be at most ${NESTING_CEILING} (deeper values would exhaust the call stack)`,
      limit: 'maxNestingDepth',
    });
  }
  return resolved;
}
