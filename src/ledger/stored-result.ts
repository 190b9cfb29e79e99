/**
 * Results are stored as JSON; these helpers convert on the way in and out.
 */

import type { JsonValue } from '../core/json.js';
import { LedgerError } from '../errors.js';
import type { RecordedError, TransitionRecord } from '../records/transition-record.js';

/** Code of the error recorded when a completed call's result has no JSON form. */
export const RESULT_NOT_STORED = 'result_not_stored';

/** The JSON form of a result, or an error note when it has none (a bigint, a cycle). */
export function toStoredResult(value: unknown): { result?: JsonValue; error: RecordedError | null } {
  if (value === undefined) return { error: null };
  try {
    const text = JSON.stringify(value);
    if (text === undefined) return { error: null };
    return { result: JSON.parse(text) as JsonValue, error: null };
  } catch (cause) {
    return {
      error: {
        name: 'ResultNotStored',
        code: RESULT_NOT_STORED,
        message: `The result has no JSON form: ${cause instanceof Error ? cause.message : String(cause)}`,
      },
    };
  }
}

/** The stored result of a COMPLETED record; throws when the result could not be stored. */
export function readStoredResult(record: TransitionRecord): unknown {
  if (record.error?.code === RESULT_NOT_STORED) {
    throw new LedgerError(
      `Tool \`${record.tool}\` completed (key \`${record.key}\`) but its result could not be stored; it was not run again`,
      { code: RESULT_NOT_STORED },
    );
  }
  return record.result;
}

/** The part of an error worth keeping on the record. */
export function toRecordedError(error: unknown): RecordedError {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return { name: error.name, message: error.message, ...(typeof code === 'string' ? { code } : {}) };
  }
  return { name: 'NonError', message: String(error) };
}

/** A copy of `record` without `result`. */
export function withoutResult(record: TransitionRecord): TransitionRecord {
  const { result: _dropped, ...rest } = record;
  return rest;
}

/**
 * `record` completed with `value` by someone other than its owner (a reconciler's verdict, an
 * operator's release): the effect crossed, the result stored, no owner and no lease left.
 */
export function completedWith(record: TransitionRecord, value: unknown, at: number): TransitionRecord {
  const stored = toStoredResult(value);
  return {
    ...withoutResult(record),
    ...(stored.result === undefined ? {} : { result: stored.result }),
    outcome: 'COMPLETED',
    boundary: 'crossed',
    error: stored.error,
    owner: null,
    leaseUntil: null,
    completedAt: at,
  };
}
