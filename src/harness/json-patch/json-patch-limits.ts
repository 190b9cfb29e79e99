/**
 * The bounds `applyJsonPatch` enforces. Sizes are bytes of canonical (RFC 8785) UTF-8 JSON.
 */

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
