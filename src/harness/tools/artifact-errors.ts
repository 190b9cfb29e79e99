/**
 * How a tool call ends when an artifact it waits for (a render, an asset preview, an input
 * artifact) could not be loaded or came back unusable.
 */
import type { BoundedFailure } from '../run/race.js';
import { type ArtifactBounds, type CheckedArtifact, checkArtifact } from '../visual/check-artifact.js';
import { ToolCallError } from './tool-call-error.js';

/** The error of a load of `subject` that failed or timed out; a later call may try again. */
export function loadFailedError(failure: BoundedFailure, code: string, subject: string): ToolCallError {
  return new ToolCallError(
    failure.timedOut ? 'timed_out' : 'failed',
    code,
    `${subject} could not be loaded: ${failure.reason}; you may try again`,
    { cause: failure.error },
  );
}

/** `value` checked against `bounds`; throws a `failed` call with `code` when `subject` is unusable. */
export function usableArtifact(value: unknown, bounds: ArtifactBounds, code: string, subject: string): CheckedArtifact {
  const checked = checkArtifact(value, bounds);
  if (!checked.ok) throw new ToolCallError('failed', code, `${subject} is unusable: ${checked.problem}`);
  return checked.artifact;
}
