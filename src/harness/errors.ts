/**
 * Errors of the patch harness. Every class extends {@link GuardError} with a stable `code`.
 */
import { GuardError, type GuardErrorOptions, InvalidOptionError } from '../errors.js';

/**
 * A harness, tool, policy or design spec was defined with options that cannot work: now
 * {@link InvalidOptionError} itself (code `invalid_option`, the option's path in `option`). The
 * name stays so `instanceof HarnessConfigError` goes on working.
 *
 * @deprecated Catch {@link InvalidOptionError}.
 */
export const HarnessConfigError: typeof InvalidOptionError = InvalidOptionError;
/** @deprecated Use {@link InvalidOptionError}. */
export type HarnessConfigError = InvalidOptionError;

/** The {@link InvalidOptionError} of a harness option, in the harness's words: ``Invalid option `x`: problem``. */
export function invalidHarnessOption(
  option: string,
  problem: string,
  options: GuardErrorOptions = {},
): InvalidOptionError {
  return new InvalidOptionError(option, `Invalid option \`${option}\`: ${problem}`, options);
}

/** A run was started with input that cannot be used (a design that fails its spec, a tool message in the history). */
export class HarnessInputError extends GuardError {
  /** The offending run option, e.g. `history[3]` or `design`. */
  readonly field: string;

  constructor(field: string, problem: string, options: GuardErrorOptions = {}) {
    super('harness_input_invalid', `Invalid run input \`${field}\`: ${problem}`, options);
    this.field = field;
  }
}

/** Names of the limits a run can exceed. */
export const RunLimit = {
  maxSteps: 'maxSteps',
  maxProtocolRetries: 'maxProtocolRetries',
  maxValidationRetries: 'maxValidationRetries',
  runTimeoutMs: 'runTimeoutMs',
  maxProviderTokens: 'maxProviderTokens',
  maxToolResultBytesPerRun: 'maxToolResultBytesPerRun',
  maxIdenticalToolCalls: 'maxIdenticalToolCalls',
  maxIdenticalCandidates: 'maxIdenticalCandidates',
} as const;
/** Names of the limits a run can exceed. */
export type RunLimit = (typeof RunLimit)[keyof typeof RunLimit];

/** What a {@link RunLimitExceededError} carries. */
export interface RunLimitExceededInit extends GuardErrorOptions {
  readonly limit: RunLimit;
  /** The configured value of the limit. */
  readonly value: number;
  readonly runId: string;
  readonly message: string;
}

/**
 * A run stopped on one of its limits: steps, retries, the total run timeout, or an opt-in guard
 * (provider tokens, tool-result bytes, repeated identical calls, identical candidates). No proposal
 * is returned.
 */
export class RunLimitExceededError extends GuardError {
  readonly limit: RunLimit;
  readonly value: number;
  readonly runId: string;

  constructor(init: RunLimitExceededInit) {
    super('run_limit_exceeded', init.message, init);
    this.limit = init.limit;
    this.value = init.value;
    this.runId = init.runId;
  }
}

/** The error of run `runId` stopped on `limit` (configured `value`), saying why. */
export function runStopped(runId: string, limit: RunLimit, value: number, reason: string): RunLimitExceededError {
  return new RunLimitExceededError({ limit, value, runId, message: `Run \`${runId}\` stopped: ${reason}` });
}

/**
 * The name {@link RunLimitExceededError} had before every error class ended in `Error`; the same
 * class, so `instanceof RunLimitExceeded` goes on working.
 *
 * @deprecated Catch {@link RunLimitExceededError}.
 */
export const RunLimitExceeded: typeof RunLimitExceededError = RunLimitExceededError;
/** @deprecated Use {@link RunLimitExceededError}. */
export type RunLimitExceeded = RunLimitExceededError;

/** A tool whose failure mode is `raise` failed or timed out; `cause` is what the tool threw. */
export class ToolRaisedError extends GuardError {
  readonly tool: string;
  readonly callId: string;
  readonly runId: string;
  /** `failed` or `timed_out`. */
  readonly status: string;

  constructor(init: { tool: string; callId: string; runId: string; status: string; reason: string; cause: unknown }) {
    super('tool_raised', `Tool \`${init.tool}\` (call \`${init.callId}\`) ${init.status}: ${init.reason}`, {
      cause: init.cause,
    });
    this.tool = init.tool;
    this.callId = init.callId;
    this.runId = init.runId;
    this.status = init.status;
  }
}

/** A context policy returned a transcript that breaks the harness's invariants. */
export class ContextPolicyError extends GuardError {
  readonly policy: string;
  /** Index of the offending message in the returned transcript, or `null`. */
  readonly index: number | null;

  constructor(policy: string, index: number | null, problem: string) {
    const at = index === null ? '' : ` at message ${index}`;
    super('context_policy_invalid', `Context policy \`${policy}\` returned an invalid transcript${at}: ${problem}`);
    this.policy = policy;
    this.index = index;
  }
}
