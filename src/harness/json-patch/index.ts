/**
 * Bounded RFC 6902 JSON Patch and RFC 6901 JSON Pointer.
 */

export type { JsonValue } from '../../core/json.js';
export { applyJsonPatch } from './apply-json-patch.js';
export { jsonEquals } from './json-equals.js';
export {
  JSON_PATCH_ERROR_CODE,
  JsonPatchError,
  type JsonPatchErrorCode,
  type JsonPatchErrorInit,
} from './json-patch-error.js';
export { DEFAULT_JSON_PATCH_LIMITS, type JsonPatchLimits } from './json-patch-limits.js';
export { formatJsonPointer, getByPointer, parseJsonPointer } from './json-pointer.js';
export type { JsonPatchOperation, JsonPatchOperationName } from './parse-patch.js';
