/**
 * Turns a stopped walk ({@link WalkFailure}) into the {@link JsonPatchError} a caller sees.
 */
import { JsonPatchError } from './json-patch-error.js';
import type { JsonPatchLimits } from './json-patch-limits.js';
import { formatJsonPointer } from './json-pointer.js';
import { failurePath, hasCycleAlong, WalkFailure } from './json-size.js';

/** What was being walked, for the message and the error's fields. */
export interface WalkSubject {
  /** The walked value itself (to tell a cycle from deep nesting). */
  readonly root: unknown;
  /** How the message names it: "the document", "`value`". */
  readonly label: string;
  /** The size limit the walk's byte cap stood for. */
  readonly sizeLimit: 'maxPatchBytes' | 'maxValueBytes' | 'maxDocumentBytes';
  /** The cap itself, for the message. */
  readonly cap: number;
  readonly operationIndex: number | null;
  readonly operation: unknown;
}

/** The error for `error`, thrown while measuring `subject`; anything but a {@link WalkFailure} passes through. */
export function walkError(error: unknown, subject: WalkSubject, limits: JsonPatchLimits): unknown {
  if (!(error instanceof WalkFailure)) return error;
  const path = failurePath(error);
  const at = path.length === 0 ? subject.label : `${subject.label} at \`${formatJsonPointer(path)}\``;
  const context = { operationIndex: subject.operationIndex, operation: subject.operation };
  if (error.stop === 'not_json') {
    return new JsonPatchError({ ...context, code: 'non_json_value', reason: `${at} is not JSON: ${error.detail}` });
  }
  if (hasCycleAlong(subject.root, path)) {
    return new JsonPatchError({ ...context, code: 'non_json_value', reason: `${at} is not JSON: it contains a cycle` });
  }
  if (error.stop === 'too_deep') {
    return new JsonPatchError({
      ...context,
      code: 'limit_exceeded',
      limit: 'maxNestingDepth',
      reason: `${at} nests deeper than \`maxNestingDepth\` (${limits.maxNestingDepth} levels)`,
    });
  }
  return new JsonPatchError({
    ...context,
    code: 'limit_exceeded',
    limit: subject.sizeLimit,
    reason: `${subject.sizeLimit === 'maxPatchBytes' ? 'the patch' : subject.label} exceeds \`${subject.sizeLimit}\` (${subject.cap} bytes of canonical JSON)`,
  });
}
