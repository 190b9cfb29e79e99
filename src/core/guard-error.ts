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

/**
 * A public function was called with an argument of the wrong kind, or one that could not be read
 * (a getter or a Proxy trap that throws): code `invalid_argument`. `fn` and `argument` name it.
 *
 * @example
 * try { repairTranscript(null as never); } catch (error) {
 *   if (error instanceof InvalidArgumentError) error.argument; // 'messages'
 * }
 */
export class InvalidArgumentError extends GuardError {
  /** The function called, `repairTranscript`. */
  readonly fn: string;
  /** The parameter at fault, `messages` or `options.format`. */
  readonly argument: string;
  /** What is wrong with it (`must be an array, got a string`), for a front door that names it its own way. */
  readonly problem: string;

  constructor(fn: string, argument: string, problem: string, options: GuardErrorOptions = {}) {
    super('invalid_argument', `\`${fn}\`: \`${argument}\` ${problem}`, options);
    this.fn = fn;
    this.argument = argument;
    this.problem = problem;
  }
}

/** What `value` is, in a few words, without reading any of its properties. */
export function kindOf(value: unknown): string {
  if (value === null) return '`null`';
  if (Array.isArray(value)) return 'an array';
  switch (typeof value) {
    case 'string':
      return 'a string';
    case 'number':
    case 'bigint':
      return `the number \`${String(value)}\``;
    case 'boolean':
      return `\`${String(value)}\``;
    case 'undefined':
      return '`undefined`';
    case 'function':
      return 'a function';
    case 'symbol':
      return 'a symbol';
    default:
      return 'an object';
  }
}
