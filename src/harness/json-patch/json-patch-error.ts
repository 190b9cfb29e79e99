/**
 * The one error `applyJsonPatch` raises, and its stable codes.
 */
import { GuardError } from '../../errors.js';
import type { JsonPatchLimits } from './json-patch-limits.js';

/** Why a patch was refused; each value is a stable `code` of {@link JsonPatchError}. */
export const JSON_PATCH_ERROR_CODE = {
  /** The patch or an operation is malformed: not an array, unknown `op`, a missing member, a move into its own child. */
  invalidPatch: 'invalid_patch',
  /** A pointer breaks RFC 6901, or a token cannot address an array (`01`, `1e0`, `foo`). */
  invalidPointer: 'invalid_pointer',
  /** The location does not exist (missing member, index out of range, `-` outside `add`). */
  pathNotFound: 'path_not_found',
  /** A `test` operation compared unequal. */
  testFailed: 'test_failed',
  /** A limit of {@link JsonPatchLimits} was exceeded (see `limit`). */
  limitExceeded: 'limit_exceeded',
  /** The document or a patch value holds something JSON cannot represent, or cannot be read (a getter or Proxy trap that throws). */
  nonJsonValue: 'non_json_value',
  /** The limits passed to `applyJsonPatch` are not an object of numbers it can enforce. */
  invalidLimits: 'invalid_limits',
} as const;

/** One of the codes of {@link JSON_PATCH_ERROR_CODE}. */
export type JsonPatchErrorCode = (typeof JSON_PATCH_ERROR_CODE)[keyof typeof JSON_PATCH_ERROR_CODE];

/** What a {@link JsonPatchError} is built from. */
export interface JsonPatchErrorInit {
  readonly code: JsonPatchErrorCode;
  readonly reason: string;
  /** Index of the offending operation in the patch; `null` when the patch or document as a whole is refused. */
  readonly operationIndex?: number | null;
  readonly operation?: unknown;
  readonly limit?: keyof JsonPatchLimits | null;
  readonly cause?: unknown;
}

function describeOperation(operation: unknown): string {
  if (typeof operation !== 'object' || operation === null) return '';
  let op: unknown;
  let path: unknown;
  try {
    ({ op, path } = operation as { op?: unknown; path?: unknown });
  } catch {
    return ''; // a getter that throws: the reason says so
  }
  const name = typeof op === 'string' ? ` \`${op.slice(0, 32)}\`` : '';
  const at = typeof path === 'string' ? ` at \`${path === '' ? '""' : path.slice(0, 200)}\`` : '';
  return name + at;
}

/**
 * A JSON Patch was refused; nothing was applied.
 *
 * `operationIndex` names the operation at fault (`null` when the patch or the document as a whole
 * is refused), `reason` says why in one sentence, and `limit` names the exceeded limit for
 * `limit_exceeded`. The message is written so that a model that proposed the patch can fix it.
 */
export class JsonPatchError extends GuardError {
  declare readonly code: JsonPatchErrorCode;
  readonly operationIndex: number | null;
  readonly operation: unknown;
  readonly reason: string;
  readonly limit: keyof JsonPatchLimits | null;

  constructor(init: JsonPatchErrorInit) {
    const index = init.operationIndex ?? null;
    const where = index === null ? 'JSON Patch' : `JSON Patch operation ${index}${describeOperation(init.operation)}`;
    const message = `${where} refused: ${init.reason}`;
    super(init.code, message, { cause: init.cause, llmMessage: message });
    this.operationIndex = index;
    this.operation = init.operation ?? null;
    this.reason = init.reason;
    this.limit = init.limit ?? null;
  }
}
