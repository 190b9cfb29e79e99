/**
 * How a pipeline outcome becomes what a runnable tool's `run` returns or throws: the runner turns a
 * throw into a `tool_result` with `is_error`, whose content is a `ToolError`'s own.
 */
import { ToolError } from '@anthropic-ai/sdk/lib/tools/ToolError';
import { GuardError } from '../../errors.js';
import { isAbortError } from '../shared/abort.js';
import { formatToolResult } from '../shared/format-result.js';
import type { ToolCallOutcome } from '../shared/types.js';

/** A result as `tool_result` content: a string or content blocks as they are, anything else as JSON. */
export function resultContent(result: unknown): string | unknown[] {
  return Array.isArray(result) ? result : formatToolResult(result);
}

/**
 * The content of an ok outcome, or a throw: a refusal (it did NOT run) and a failure a guard
 * explained as a `ToolError` with the note for the model; aborts and the body's own errors as they
 * are (the runner answers those with `Error: <message>`).
 */
export function contentOrThrow(outcome: ToolCallOutcome, signal: AbortSignal | undefined): string | unknown[] {
  switch (outcome.status) {
    case 'ok':
      return resultContent(outcome.result);
    case 'refused':
      throw new ToolError(outcome.message);
    case 'error':
      if (isAbortError(outcome.error, signal) || !(outcome.error instanceof GuardError)) throw outcome.error;
      throw new ToolError(outcome.message);
  }
}
