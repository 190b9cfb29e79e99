/**
 * Errors of the tool boundary. Every class extends {@link GuardError}; those a model may read carry
 * an `llmMessage` written for the model.
 */
import { type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';
import { GuardError, type GuardErrorOptions } from '../errors.js';
import type { ChatMessage } from './chat.js';
import type { ValidationIssue } from './issues.js';
import { describeField, IssueCode, toJsonPointer } from './issues.js';

const OWN_REASONS = [
  'unparseable_arguments',
  'scope_path',
  'scope_entity_pattern',
  'output_validation_failed',
] as const;
/**
 * Why a tool call was refused at the boundary (or, for `output_validation_failed`, after it ran):
 * the code of the first issue of its arguments ({@link IssueCode}), or a reason of the boundary's own.
 */
export const ToolBoundaryViolation: typeof IssueCode & Vocabulary<typeof OWN_REASONS> = Object.freeze({
  ...IssueCode,
  ...vocabulary(OWN_REASONS),
});
/** Why a tool call was refused at the boundary (or, for `output_validation_failed`, after it ran). */
export type ToolBoundaryViolation = ValueOf<typeof ToolBoundaryViolation>;

/** Everything a {@link ToolBoundaryError} carries. */
export interface ToolBoundaryErrorInit {
  readonly violation: ToolBoundaryViolation;
  readonly tool: string;
  /** JSON pointer of the offending argument (`/customer_id`); `''` for the arguments as a whole. */
  readonly field: string;
  readonly expected: string;
  readonly actual: string;
  readonly message: string;
  readonly llmMessage: string;
  readonly recoveryHint: string;
  /** Every issue found (the first one is described by `field`, `expected`, `actual`). */
  readonly issues?: readonly ValidationIssue[];
  /** True only for `output_validation_failed`: the body ran, its effect may have happened. */
  readonly executed?: boolean;
  readonly cause?: unknown;
}

/**
 * A tool call broke the tool's boundary: bad arguments, a path outside the allowed roots, an
 * entity id of the wrong shape, or an output that failed its schema. Unless `executed` is true the
 * body did not run.
 */
export class ToolBoundaryError extends GuardError {
  readonly violation: ToolBoundaryViolation;
  readonly tool: string;
  readonly field: string;
  readonly expected: string;
  readonly actual: string;
  override readonly llmMessage: string;
  readonly recoveryHint: string;
  readonly issues: readonly ValidationIssue[];
  readonly executed: boolean;

  constructor(init: ToolBoundaryErrorInit) {
    const options: GuardErrorOptions = { llmMessage: init.llmMessage, cause: init.cause };
    super('tool_boundary_violation', init.message, options);
    this.violation = init.violation;
    this.tool = init.tool;
    this.field = init.field;
    this.expected = init.expected;
    this.actual = init.actual;
    this.llmMessage = init.llmMessage;
    this.recoveryHint = init.recoveryHint;
    this.issues = init.issues ?? [];
    this.executed = init.executed ?? false;
  }
}

/** What ran out: the model's chances to fix its call, or the tool's retries. */
export type ExhaustedBudget = 'llm_retries' | 'tool_retries';

/** Context of a {@link ToolBoundaryExhaustedError}. */
export interface ExhaustedContext {
  readonly tool?: string;
  /** The transcript when the runner gave up (for `llm_retries`: with the last refused round). */
  readonly transcript?: readonly ChatMessage[];
}

/**
 * The runner gave up: the model never produced a valid call within `maxLlmRetries`, or the tool
 * kept failing within `maxToolRetries`. `lastError` is the last failure seen.
 */
export class ToolBoundaryExhaustedError extends GuardError {
  readonly lastError: unknown;
  readonly budget: ExhaustedBudget;
  readonly attempts: number;
  readonly tool: string | undefined;
  readonly transcript: readonly ChatMessage[] | undefined;

  constructor(budget: ExhaustedBudget, attempts: number, lastError: unknown, context: ExhaustedContext = {}) {
    const what = budget === 'llm_retries' ? 'model attempts' : 'tool attempts';
    const subject = context.tool === undefined ? '' : ` for \`${context.tool}\``;
    const last = lastError instanceof Error ? lastError.message : String(lastError);
    const llmMessage =
      budget === 'tool_retries' && context.tool !== undefined
        ? `The call to \`${context.tool}\` failed ${attempts} times and was given up; its result is not available.`
        : undefined;
    super('tool_boundary_exhausted', `Gave up${subject} after ${attempts} ${what}: ${last}`, {
      cause: lastError,
      ...(llmMessage === undefined ? {} : { llmMessage }),
    });
    this.lastError = lastError;
    this.budget = budget;
    this.attempts = attempts;
    this.tool = context.tool;
    this.transcript = context.transcript;
  }
}

/** A value failed {@link assertValid}; `issues` lists every problem as data. */
export class ValidationError extends GuardError {
  readonly issues: readonly ValidationIssue[];

  constructor(issues: readonly ValidationIssue[]) {
    const first = issues[0];
    const at = first === undefined || first.path.length === 0 ? 'the root' : describeField(toJsonPointer(first.path));
    const where = first === undefined ? at : `${at}: ${first.message}`;
    const more = issues.length > 1 ? ` (and ${issues.length - 1} more)` : '';
    super('validation_failed', `Validation failed at ${where}${more}`);
    this.issues = issues;
  }
}

/** Why the registry refused a name. */
export type ToolRegistryReason = 'unknown_tool' | 'not_registered' | 'not_allowed' | 'duplicate' | 'name_mismatch';

/** The registry refused a tool: not on the allow list, not registered, or registered twice. */
export class ToolRegistryError extends GuardError {
  readonly tool: string;
  readonly allowed: readonly string[];
  readonly reason: ToolRegistryReason;

  constructor(reason: ToolRegistryReason, tool: string, allowed: readonly string[], message: string, llm?: string) {
    super(`tool_registry_${reason}`, message, llm === undefined ? {} : { llmMessage: llm });
    this.tool = tool;
    this.allowed = allowed;
    this.reason = reason;
  }
}

/** Where a malformed schema was found: the tool and which of its schemas, when known. */
export interface SchemaDefinitionErrorOptions extends GuardErrorOptions {
  readonly tool?: string;
  /** `schema` or `outputSchema`. */
  readonly option?: string;
}

/** A schema given to {@link compileSchema} or `bounded` is malformed; raised when it is defined. */
export class SchemaDefinitionError extends GuardError {
  /** JSON pointer into the schema (`/customer_id`); `''` for the schema as a whole. */
  readonly field: string;
  readonly problem: string;
  readonly tool: string | undefined;

  constructor(field: string, problem: string, options: SchemaDefinitionErrorOptions = {}) {
    const which = options.option === undefined ? 'schema' : `\`${options.option}\``;
    const of = options.tool === undefined ? '' : ` of tool \`${options.tool}\``;
    const at = field === '' ? '' : ` at \`${field}\``;
    super('invalid_schema', `Invalid ${which}${of}${at}: ${problem}`, options);
    this.field = field;
    this.problem = problem;
    this.tool = options.tool;
  }
}

/** A tool definition (`bounded` options, runner options) is malformed; raised when it is defined. */
export class ToolDefinitionError extends GuardError {
  readonly tool: string | undefined;
  readonly option: string;
  readonly problem: string;

  constructor(tool: string | undefined, option: string, problem: string, options: GuardErrorOptions = {}) {
    const subject = tool === undefined ? '' : ` of tool \`${tool}\``;
    super('invalid_tool_definition', `Invalid option \`${option}\`${subject}: ${problem}`, options);
    this.tool = tool;
    this.option = option;
    this.problem = problem;
  }
}
