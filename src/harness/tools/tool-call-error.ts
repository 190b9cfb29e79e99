/**
 * An error a tool throws to end its call with a chosen status and code, and a message written
 * for the model (the built-in tools use it for every refusal).
 */
import { codeList } from '../../core/code-list.js';
import { GuardError } from '../../errors.js';

/** How a {@link ToolCallError} ends the call. */
export type ToolCallErrorStatus = 'rejected' | 'failed' | 'timed_out';

/**
 * Thrown by a tool body: the call ends with `status` and `code` (instead of `failed` /
 * `tool_error`), and the model is shown `message`. `rejected` means nothing was done.
 *
 * @example
 * throw new ToolCallError('rejected', 'unknown_palette', 'Unknown palette `neon` (known: `brand`, `muted`)');
 */
export class ToolCallError extends GuardError {
  readonly status: ToolCallErrorStatus;

  constructor(status: ToolCallErrorStatus, code: string, message: string, options: { cause?: unknown } = {}) {
    super(code, message, { ...options, llmMessage: message });
    this.status = status;
  }
}

/** A rejected call naming a ref this run does not know: `<message> (known: <refs>)`. */
export function unknownRefError(code: string, message: string, known: Iterable<string>): ToolCallError {
  return new ToolCallError('rejected', code, `${message} (known: ${codeList(known)})`);
}
