/**
 * Turning verdicts and errors into outcomes: a refusal says the call did NOT happen, a failure
 * says what failed and whether its effect may have happened.
 */
import { ToolBoundaryError } from '../../boundary/errors.js';
import { GuardError } from '../../errors.js';
import type { FuseRefusal } from '../../fuses/verdict.js';
import { type GuardRefusal, RefusalStage, type ToolCallFailure, type ToolCallRefusal } from './types.js';

/** How a message names a call. */
export function callSubject(name: string): string {
  return name === '' ? 'The tool call' : `The call to \`${name}\``;
}

/** The message of anything thrown. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return typeof error === 'string' ? error : 'a non-error value was thrown';
}

/** A refusal outcome. */
export function refused(refusal: GuardRefusal): ToolCallRefusal {
  return Object.freeze({ status: 'refused', ...refusal });
}

/** A fuse's refusal; `terminal` also when the fuse is one of the run's terminal fuses. */
export function fromVerdict(verdict: FuseRefusal, terminalFuses: ReadonlySet<string>): ToolCallRefusal {
  return refused({
    stage: RefusalStage.fuses,
    code: verdict.code,
    message: verdict.note,
    reason: verdict.reason,
    terminal: verdict.terminal || terminalFuses.has(verdict.fuse),
    verdict,
  });
}

/** Every call of a stopped run. */
export function runStopped(name: string, stoppedBy: GuardRefusal): ToolCallRefusal {
  return refused({
    stage: RefusalStage.run,
    code: 'run_stopped',
    message: `${callSubject(name)} was NOT executed: this run was stopped by an earlier refusal. Do not make further calls; report to the user`,
    reason: `The run is stopped by \`${stoppedBy.code}\` (${stoppedBy.stage}): ${stoppedBy.reason}`,
    terminal: true,
  });
}

/** A call whose tool has no body in this framework. */
export function unknownTool(name: string): ToolCallRefusal {
  return refused({
    stage: RefusalStage.registry,
    code: 'unknown_tool',
    message: `The tool \`${name}\` does not exist; the call was NOT executed. Use one of the tools you were given`,
    reason: `No tool body for \`${name}\``,
    terminal: false,
  });
}

/**
 * Codes whose refusal stops the run: a store that cannot be trusted, or that may lose records,
 * fails every later side-effecting call too.
 */
const TERMINAL_CODES: ReadonlySet<string> = new Set(['ledger_storage_corrupt', 'ledger_storage_unsafe']);

const DEFAULT_NOTES: Readonly<Record<string, string>> = {
  ledger_poll_timeout: 'another attempt of the same call is still running. Try again later',
  ledger_storage_unavailable: 'the record that keeps it from running twice could not be written. Try again later',
  ledger_storage_corrupt: 'the record that keeps it from running twice cannot be trusted. Report to the user',
  ledger_storage_unsafe: 'the store that keeps it from running twice may lose records. Report to the user',
};

/** An error raised before the body started: a registry, boundary, cache or ledger refusal. */
export function refusedByError(stage: RefusalStage, name: string, error: GuardError): ToolCallRefusal {
  const note = DEFAULT_NOTES[error.code] ?? 'a safety check refused it';
  return refused({
    stage,
    code: error.code,
    message: error.llmMessage ?? `${callSubject(name)} was NOT executed: ${note}`,
    reason: error.message,
    terminal: TERMINAL_CODES.has(error.code),
    error,
  });
}

/** The body ran (or had started) and failed, or the guards failed in a way that is not a refusal. */
export function failed(name: string, error: unknown, executed: boolean): ToolCallFailure {
  const own = error instanceof GuardError ? error.llmMessage : undefined;
  const message =
    own ??
    (executed
      ? `${callSubject(name)} failed: ${describeError(error)}`
      : `${callSubject(name)} was NOT executed: ${describeError(error)}`);
  return Object.freeze({ status: 'error', error, message, executed });
}

/** Code of the ledger error raised when a completed call's result could not be stored. */
const RESULT_NOT_STORED = 'result_not_stored';

/**
 * Classify what a guarded call threw. Before the body started, a guard error is a refusal (the
 * call did NOT happen); once it started, anything is a failure. An output that failed validation
 * is a failure too: the body ran.
 */
export function classifyError(
  name: string,
  error: unknown,
  bodyStarted: boolean,
  stage: RefusalStage,
): ToolCallRefusal | ToolCallFailure {
  if (bodyStarted) return failed(name, error, true);
  if (error instanceof ToolBoundaryError && error.executed) return failed(name, error, true);
  if (error instanceof GuardError) {
    if (error.code === RESULT_NOT_STORED) {
      const message = `${callSubject(name)} already ran earlier, but its result could not be kept; it was NOT run again`;
      return Object.freeze({ status: 'error' as const, error, message, executed: false });
    }
    return refusedByError(stage, name, error);
  }
  return failed(name, error, false);
}
