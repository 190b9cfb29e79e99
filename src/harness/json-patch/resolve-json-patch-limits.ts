/**
 * The check of the limits a caller passes to `applyJsonPatch`: apart from their type, which the
 * error names, so the error and the limits import no circle.
 */
import { JsonPatchError } from './json-patch-error.js';
import { DEFAULT_JSON_PATCH_LIMITS, type JsonPatchLimits } from './json-patch-limits.js';

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
