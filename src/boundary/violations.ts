/**
 * Builders of {@link ToolBoundaryError}: one per kind of violation, each with an operator message,
 * an `llmMessage` that tells the model whether the call ran and what to change, and a hint.
 */
import { isRerunnable, type SideEffectClass } from '../records/envelope.js';
import { ToolBoundaryError, type ToolBoundaryViolation } from './errors.js';
import { describeField, describeValue, toJsonPointer, type ValidationIssue } from './issues.js';

const MAX_LISTED_ISSUES = 10;

function listIssues(issues: readonly ValidationIssue[]): string {
  const lines = issues
    .slice(0, MAX_LISTED_ISSUES)
    .map((issue) => `- ${describeField(toJsonPointer(issue.path))}: ${issue.message}`);
  if (issues.length > MAX_LISTED_ISSUES) lines.push(`- … and ${issues.length - MAX_LISTED_ISSUES} more`);
  return lines.join('\n');
}

function hintFor(issue: ValidationIssue, field: string): string {
  const where = describeField(field);
  switch (issue.code) {
    case 'missing_required_field':
      return `Add the required argument ${where} (${issue.expected})`;
    case 'unexpected_field':
      return `Remove ${where}; the tool accepts ${issue.expected}`;
    case 'type_mismatch':
      return `Send ${where} as ${issue.expected}, not ${issue.actual}`;
    case 'invalid_value':
    case 'async_schema':
      return `Fix ${where}: ${issue.message}`;
    default:
      return `Send ${where} as ${issue.expected}`;
  }
}

function more(count: number): string {
  return count > 1 ? ` (and ${count - 1} more issue${count > 2 ? 's' : ''})` : '';
}

/** The arguments failed the tool's input schema; the body did not run. */
export function inputViolation(tool: string, issues: readonly ValidationIssue[]): ToolBoundaryError {
  const first = issues[0] ?? {
    code: 'invalid_value',
    path: [],
    expected: 'valid arguments',
    actual: 'invalid arguments',
    message: 'The arguments are invalid',
  };
  const field = toJsonPointer(first.path);
  return new ToolBoundaryError({
    violation: first.code,
    tool,
    field,
    expected: first.expected,
    actual: first.actual,
    issues,
    message: `Tool \`${tool}\` refused its arguments at ${describeField(field)}: ${first.message}${more(issues.length)}`,
    llmMessage:
      `The call to \`${tool}\` was NOT executed: its arguments are invalid.\n${listIssues(issues.length > 0 ? issues : [first])}\n` +
      `Fix the arguments and call \`${tool}\` again.`,
    recoveryHint: hintFor(first, field),
  });
}

/** The model's tool-call arguments were not parseable (not JSON, or not an object). */
export function unparseableArguments(tool: string, raw: string, reason: string): ToolBoundaryError {
  return new ToolBoundaryError({
    violation: 'unparseable_arguments',
    tool,
    field: '',
    expected: 'a JSON object',
    actual: describeValue(raw),
    message: `Tool \`${tool}\` received arguments that cannot be parsed: ${reason}`,
    llmMessage: `The call to \`${tool}\` was NOT executed: its arguments are not a valid JSON object (${reason}). Send the arguments as one JSON object and call \`${tool}\` again.`,
    recoveryHint: 'Send the arguments as one JSON object',
  });
}

/** What a scope violation is about. */
export interface ScopeViolationInit {
  readonly violation: Extract<ToolBoundaryViolation, 'scope_path' | 'scope_entity_pattern'>;
  readonly tool: string;
  readonly field: string;
  readonly expected: string;
  readonly value: unknown;
  /** Why, for operators (may name resolved paths); the model gets `expected` only. */
  readonly detail: string;
}

/** An argument names a path outside the allowed roots, or an entity id of the wrong form. */
export function scopeViolation(init: ScopeViolationInit): ToolBoundaryError {
  const where = describeField(init.field);
  const actual = describeValue(init.value);
  const what =
    init.violation === 'scope_path' ? 'is outside the allowed scope' : 'is not an entity this tool may touch';
  return new ToolBoundaryError({
    violation: init.violation,
    tool: init.tool,
    field: init.field,
    expected: init.expected,
    actual,
    message: `Tool \`${init.tool}\` refused ${where}: ${init.detail}`,
    llmMessage: `The call to \`${init.tool}\` was NOT executed: ${where} ${what} (got ${actual}; expected ${init.expected}). Change ${where} and call \`${init.tool}\` again, or tell the user the request is out of scope.`,
    recoveryHint: `Send ${where} as ${init.expected}`,
  });
}

/** The body ran and returned an output that failed the tool's output schema. */
export function outputViolation(
  tool: string,
  issues: readonly ValidationIssue[],
  sideEffectClass: SideEffectClass,
): ToolBoundaryError {
  const first = issues[0];
  const field = first === undefined ? '' : toJsonPointer(first.path);
  const where = field === '' ? 'the output' : `output \`${field}\``;
  const summary = `${where}: ${first?.message ?? 'invalid'}`;
  const llmMessage = isRerunnable(sideEffectClass)
    ? `The call to \`${tool}\` ran but returned an invalid result (${summary}); the result was discarded. You may call \`${tool}\` again.`
    : `The call to \`${tool}\` WAS executed and its effect may have happened, but its result failed validation (${summary}). Do not call \`${tool}\` again for the same request; tell the user the outcome could not be confirmed.`;
  return new ToolBoundaryError({
    violation: 'output_validation_failed',
    tool,
    field,
    expected: first?.expected ?? 'a valid output',
    actual: first?.actual ?? 'an invalid output',
    issues,
    executed: true,
    message: `Tool \`${tool}\` returned an output that failed validation at ${summary}${more(issues.length)}`,
    llmMessage,
    recoveryHint: `Fix \`${tool}\` or its \`outputSchema\`; ${isRerunnable(sideEffectClass) ? 'the body may be re-run' : 'the body is not re-run, it may have had an effect'}`,
  });
}
