/**
 * Every error hyphae raises extends {@link GuardError} and carries a stable string `code`.
 *
 * Errors that a model may read (a refused or conflicting tool call) also carry `llmMessage`,
 * written for the model rather than for the operator.
 */
import { GuardError, type GuardErrorOptions } from './core/guard-error.js';
import type { TransitionRecord } from './records/transition-record.js';

export { CanonicalJsonError, GuardError, type GuardErrorOptions } from './core/guard-error.js';

/**
 * An option that cannot work: a negative lease, an unknown mode, a missing storage. Every factory
 * and driver raises this one class (code `invalid_option`) for a bad option; `option` is its path
 * (`leaseTtlMs`, `limits.maxSteps`, `tools[2].name`).
 *
 * @example
 * try { createLedger({ storage, agentId: 'a', policyVersion: '1', leaseTtlMs: Number.NaN }); } catch (error) {
 *   if (error instanceof InvalidOptionError) error.option; // 'leaseTtlMs'
 * }
 */
export class InvalidOptionError extends GuardError {
  /** The path of the offending option, e.g. `leaseTtlMs` or `limits.maxSteps`. */
  readonly option: string;

  constructor(option: string, message: string, options: GuardErrorOptions = {}) {
    super('invalid_option', message, options);
    this.option = option;
  }
}

/**
 * An optional peer dependency that a feature needs is not installed, or does not load (code
 * `missing_peer_dependency`); the message says what needs it and the command that installs it.
 *
 * @example
 * try { await ledger.tool(spec, body)(args); } catch (error) {
 *   if (error instanceof MissingPeerDependencyError) error.packageNames; // ['better-sqlite3']
 * }
 */
export class MissingPeerDependencyError extends GuardError {
  /** The first package to install (the only one, most often). */
  readonly packageName: string;
  /** Every package the `npm install` command of the message installs. */
  readonly packageNames: readonly string[];

  constructor(packageNames: readonly [string, ...string[]], message: string, options: GuardErrorOptions = {}) {
    super('missing_peer_dependency', message, options);
    this.packageName = packageNames[0];
    this.packageNames = Object.freeze([...packageNames]);
  }
}

/** Base class of the ledger's errors. */
export class LedgerError extends GuardError {
  constructor(message: string, options: GuardErrorOptions & { readonly code?: string } = {}) {
    super(options.code ?? 'ledger_error', message, options);
  }
}

/** Fields shared by errors that describe one transition record. */
export interface RecordErrorOptions extends GuardErrorOptions {
  readonly record: TransitionRecord;
}

function describeRecord(record: TransitionRecord, outcome: string = record.outcome): string {
  const ref = record.externalOperationRef === null ? 'none' : `\`${record.externalOperationRef}\``;
  return `tool \`${record.tool}\`, key \`${record.key}\`, outcome \`${outcome}\`, boundary \`${record.boundary}\`, external ref ${ref}`;
}

/**
 * The ledger refused to run a side effect because an earlier attempt may have crossed its
 * boundary, or because the record is in a state that needs an operator.
 */
export class LedgerHardBlockError extends LedgerError {
  readonly record: TransitionRecord;
  readonly gate: 'HARD_BLOCK' | 'REPAIR';
  readonly reason: string;
  /** The record's outcome as the gate saw it: `EXPIRED` for an IN_FLIGHT record whose lease passed. */
  readonly outcome: string;

  constructor(
    record: TransitionRecord,
    reason: string,
    options: GuardErrorOptions & { gate?: 'HARD_BLOCK' | 'REPAIR'; outcome?: string } = {},
  ) {
    super(`Hard block on ${describeRecord(record, options.outcome)}: ${reason}`, {
      ...options,
      code: 'ledger_hard_block',
      llmMessage:
        options.llmMessage ??
        `The call to \`${record.tool}\` was NOT executed: an earlier attempt of the same call may already have taken effect and needs an operator to reconcile it. Do not retry it.`,
    });
    this.record = record;
    this.gate = options.gate ?? 'HARD_BLOCK';
    this.reason = reason;
    this.outcome = options.outcome ?? record.outcome;
  }
}

/** A read-only call met an UNKNOWN or BLOCKED record and `deferReadOnlyUnknown` is on. */
export class LedgerSoftBlockError extends LedgerError {
  readonly record: TransitionRecord;

  constructor(record: TransitionRecord) {
    super(`Soft block on ${describeRecord(record)}: the read is deferred until the record is resolved`, {
      code: 'ledger_soft_block',
      llmMessage: `The read \`${record.tool}\` was deferred; try again later.`,
    });
    this.record = record;
  }
}

/**
 * A caller waited for another owner's in-flight call longer than its poll timeout, while the owner
 * still held the lease (it kept renewing it).
 */
export class LedgerPollTimeoutError extends LedgerError {
  readonly record: TransitionRecord;
  /** How long the caller waited, on the ledger clock, from its arrival at the ledger. */
  readonly waitedMs: number;
  /** The poll timeout that ran out. */
  readonly timeoutMs: number;

  constructor(record: TransitionRecord, waitedMs: number, timeoutMs: number) {
    super(
      `Gave up after ${waitedMs} ms (poll timeout \`${timeoutMs} ms\`) waiting for ${describeRecord(record)}, whose owner still holds the lease`,
      { code: 'ledger_poll_timeout' },
    );
    this.record = record;
    this.waitedMs = waitedMs;
    this.timeoutMs = timeoutMs;
  }
}

/** The ledger's store did not answer; the side effect was not run. */
export class LedgerStorageUnavailableError extends LedgerError {
  readonly operation: string;

  constructor(operation: string, options: GuardErrorOptions = {}) {
    super(`Ledger storage is unavailable during \`${operation}\`; the tool was not run`, {
      ...options,
      code: 'ledger_storage_unavailable',
    });
    this.operation = operation;
  }
}

/** The store holds data that cannot be read (a corrupt file, a newer schema, an unparseable record). */
export class LedgerStorageCorruptError extends LedgerError {
  readonly location: string;

  constructor(location: string, reason: string, options: GuardErrorOptions = {}) {
    super(`Ledger storage \`${location}\` cannot be trusted: ${reason}`, {
      ...options,
      code: 'ledger_storage_corrupt',
    });
    this.location = location;
  }
}

/**
 * The store holds no ledger at all — never initialised, or emptied (tables dropped, a Redis
 * restarted without persistence) — and was opened with `create: false`. A subclass of
 * {@link LedgerStorageCorruptError} with its code, so every check for corruption still matches;
 * a reader that may treat "no ledger yet" as empty (the CLI's read-only commands) tells it apart.
 */
export class LedgerMissingError extends LedgerStorageCorruptError {}

/**
 * The store may lose records without saying so (an evicting Redis `maxmemory-policy`), so a
 * side-effecting call was refused before it claimed anything; the tool was not run.
 */
export class LedgerStorageUnsafeError extends LedgerError {
  /** The store's name (`redis`). */
  readonly storage: string;
  /** The driver's hazard code (`evicting_maxmemory_policy`, `maxmemory_policy_unknown`). */
  readonly hazard: string;

  constructor(storage: string, hazard: string, reason: string) {
    super(`Ledger storage \`${storage}\` may lose records, so the side-effecting tool was not run: ${reason}`, {
      code: 'ledger_storage_unsafe',
    });
    this.storage = storage;
    this.hazard = hazard;
  }
}

/** An operator release was refused (a lease is still held, or a release is already pending). */
export class LedgerReleaseRefusedError extends LedgerError {
  readonly record: TransitionRecord | null;

  constructor(key: string, reason: string, record: TransitionRecord | null) {
    super(`Release of \`${key}\` refused: ${reason}`, { code: 'ledger_release_refused' });
    this.record = record;
  }
}

/** An operator action targeted a transition that is already COMPLETED. */
export class LedgerAlreadyResolvedError extends LedgerError {
  readonly record: TransitionRecord;

  constructor(record: TransitionRecord) {
    super(`Transition \`${record.key}\` of tool \`${record.tool}\` is already COMPLETED`, {
      code: 'ledger_already_resolved',
    });
    this.record = record;
  }
}

/** A write by an owner whose claim was taken over (its fence is stale) was refused. */
export class LedgerFencedError extends LedgerError {
  readonly record: TransitionRecord | null;
  readonly fence: number;

  constructor(key: string, fence: number, record: TransitionRecord | null, options: GuardErrorOptions = {}) {
    super(`Write to \`${key}\` refused: claim generation ${fence} was taken over by another owner`, {
      ...options,
      code: 'ledger_fenced',
    });
    this.record = record;
    this.fence = fence;
  }
}

/**
 * The same tool call id was reused with different arguments in the same run scope.
 *
 * Raised with `onArgsDrift: 'soft'`; its `llmMessage` tells the model what to do.
 */
export class LedgerIdentityConflictError extends LedgerError {
  readonly existing: TransitionRecord;
  readonly ticket: string;

  constructor(existing: TransitionRecord, ticket: string, tool: string) {
    super(
      `Tool call id \`${ticket}\` was already used for \`${existing.tool}\` with different arguments (key \`${existing.key}\`); the call to \`${tool}\` was not run`,
      {
        code: 'ledger_identity_conflict',
        llmMessage: `The call to \`${tool}\` was NOT executed: its tool call id \`${ticket}\` was already used with different arguments. Issue a new tool call with a fresh id if the new arguments are intended.`,
      },
    );
    this.existing = existing;
    this.ticket = ticket;
  }
}

/** A signing or verification key that cannot be used (wrong type, too short, no key id). */
export class ReceiptKeyError extends GuardError {
  constructor(message: string, options: GuardErrorOptions = {}) {
    super('receipt_key_invalid', message, options);
  }
}

/** A receipt sink holds data that cannot be trusted (a torn or unparseable line, a broken row); nothing is appended. */
export class ReceiptSinkCorruptError extends GuardError {
  readonly location: string;

  constructor(location: string, reason: string, options: GuardErrorOptions = {}) {
    super('receipt_sink_corrupt', `Receipt sink \`${location}\` cannot be trusted: ${reason}`, options);
    this.location = location;
  }
}

/** A receipt sink could not be reached, opened or locked; nothing was appended. */
export class ReceiptSinkUnavailableError extends GuardError {
  readonly location: string;

  constructor(location: string, reason: string, options: GuardErrorOptions = {}) {
    super('receipt_sink_unavailable', `Receipt sink \`${location}\` is unavailable: ${reason}`, options);
    this.location = location;
  }
}

/**
 * The ledger found no evidence that the owner of an expired claim is dead: its heartbeat (the
 * lease renewals) is fresher than `presumedDeadAfterMs` and no death signal was recorded. Raised
 * by `markWorkerDead` without `overrideHeartbeat`, by `release` of an expired claim, and by a call
 * whose wait for such a claim ran out; nothing was run or changed.
 */
export class LedgerWorkerAliveError extends LedgerError {
  /** The record whose owner may still be alive. */
  readonly record: TransitionRecord;
  /** Time since the owner's last heartbeat. */
  readonly heartbeatAgeMs: number;
  /** The heartbeat age after which the owner is presumed dead. */
  readonly presumedDeadAfterMs: number;

  constructor(record: TransitionRecord, action: string, heartbeatAgeMs: number, presumedDeadAfterMs: number) {
    super(
      `${action} refused: the owner \`${record.owner ?? 'unknown'}\` of \`${record.key}\` (tool \`${record.tool}\`) may be alive, its last heartbeat was ${heartbeatAgeMs} ms ago (presumed dead after ${presumedDeadAfterMs} ms); mark the worker dead with \`overrideHeartbeat\` when it is known to be gone, or wait ${Math.max(0, presumedDeadAfterMs - heartbeatAgeMs)} ms`,
      { code: 'ledger_worker_alive' },
    );
    this.record = record;
    this.heartbeatAgeMs = heartbeatAgeMs;
    this.presumedDeadAfterMs = presumedDeadAfterMs;
  }
}

/**
 * A ledgered tool declared a recovery `capability` its side-effect class and mechanisms do not
 * support (a looser one than the class allows, or `queryable` with neither reconciler nor provider
 * idempotency key).
 */
export class ToolCapabilityDeclarationError extends GuardError {
  readonly tool: string;
  readonly sideEffectClass: string;
  readonly capability: string;
  /** The capabilities this tool may declare. */
  readonly allowed: readonly string[];

  constructor(tool: string, sideEffectClass: string, capability: string, allowed: readonly string[], why: string) {
    const list = allowed.map((name) => `\`${name}\``).join(', ');
    super(
      'invalid_capability',
      `Tool \`${tool}\` (\`${sideEffectClass}\`) cannot declare capability \`${capability}\`: ${why} (allowed: ${list})`,
    );
    this.tool = tool;
    this.sideEffectClass = sideEffectClass;
    this.capability = capability;
    this.allowed = Object.freeze([...allowed]);
  }
}
