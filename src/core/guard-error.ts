/**
 * The base of every hyphae error, with its stable string `code`, and the one error the core itself
 * raises (a value that is not JSON). `errors.ts` re-exports them beside every other subclass.
 */

/** Options accepted by every hyphae error. */
export interface GuardErrorOptions {
  readonly cause?: unknown;
  readonly llmMessage?: string;
}

/** Base class of every hyphae error; `code` is stable across releases. */
export class GuardError extends Error {
  readonly code: string;
  readonly llmMessage: string | undefined;

  constructor(code: string, message: string, options: GuardErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.llmMessage = options.llmMessage;
  }
}

/** A value that cannot be represented as JSON (NaN, a function, a cycle, a class instance). */
export class CanonicalJsonError extends GuardError {
  readonly path: string;

  constructor(path: string, reason: string, options: GuardErrorOptions = {}) {
    super('non_json_value', `Value at \`${path}\` is not JSON: ${reason}`, options);
    this.path = path;
  }
}
