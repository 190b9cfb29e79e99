/**
 * The operator actions of the dashboard, through the ledger's operator API only: release
 * (`completed` with a result, or `not_executed`) and mark worker dead. Each needs an actor and a
 * reason, is shown with what it will do before it is confirmed, and is refused with the ledger's
 * own message when the ledger refuses.
 */

import type { JsonValue } from '../core/json.js';
import { type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';
import { GuardError } from '../errors.js';
import { InvalidArgumentError } from '../invalid-argument.js';
import { actWhereHeld, refusedRecord } from '../ledger/operator/across-ledgers.js';
import { checkMarkDead, checkRelease } from '../ledger/operator/input.js';
import type { TransitionRecord } from '../records/transition-record.js';
import type { NamedLedger } from './queries.js';

const ACTION_KINDS = ['release_completed', 'release_not_executed', 'mark_dead'] as const;
/** The actions a form can ask for. */
export const ActionKind: Vocabulary<typeof ACTION_KINDS> = vocabulary(ACTION_KINDS);
/** The actions a form can ask for. */
export type ActionKind = ValueOf<typeof ActionKind>;

/** A checked action request. */
export interface ActionRequest {
  readonly kind: ActionKind;
  readonly by: string;
  readonly reason: string;
  /** The result text of a completed release (JSON), when given. */
  readonly resultText?: string;
  /** Mark the worker dead although its heartbeat is fresh (the operator knows it is gone). */
  readonly overrideHeartbeat?: boolean;
}

/** What a form sent, before it is checked. */
export type ActionForm = Readonly<Record<string, string | undefined>>;

/**
 * Check a form: a known action and a result that is JSON here; the actor, the reason and which
 * action may carry a result by the ledger's own operator checks, so the dashboard refuses what the
 * ledger refuses, in the ledger's words.
 */
export function parseAction(form: ActionForm): { ok: true; value: ActionRequest } | { ok: false; message: string } {
  const kind = form.action;
  if (kind === undefined || !Object.hasOwn(ActionKind, kind)) {
    return { ok: false, message: `Unknown action \`${kind ?? ''}\`` };
  }
  const by = form.by?.trim() ?? '';
  const reason = form.reason?.trim() ?? '';
  const resultText = form.result?.trim() ?? '';
  let result: unknown;
  if (resultText !== '') {
    if (kind === ActionKind.mark_dead) return { ok: false, message: 'A result goes only with a release' };
    try {
      result = JSON.parse(resultText);
    } catch {
      return { ok: false, message: `The result must be JSON, got \`${resultText}\`` };
    }
  }
  const overrideHeartbeat = form.override_heartbeat === 'yes';
  if (overrideHeartbeat && kind !== ActionKind.mark_dead) {
    return { ok: false, message: 'A heartbeat override goes only with marking a worker dead' };
  }
  try {
    if (kind === ActionKind.mark_dead) checkMarkDead({ by, reason, overrideHeartbeat });
    else
      checkRelease({
        verified: kind === ActionKind.release_completed ? 'completed' : 'not_executed',
        by,
        reason,
        result,
      });
  } catch (error) {
    if (error instanceof InvalidArgumentError) return { ok: false, message: error.message };
    throw error;
  }
  return {
    ok: true,
    value: {
      kind: kind as ActionKind,
      by,
      reason,
      ...(resultText === '' ? {} : { resultText }),
      ...(overrideHeartbeat ? { overrideHeartbeat } : {}),
    },
  };
}

/** One sentence on what the action will do to `record`, for the confirm step. */
export function describeAction(request: ActionRequest, record: TransitionRecord): string {
  const tool = `\`${record.tool}\``;
  switch (request.kind) {
    case ActionKind.release_completed:
      return `The transition becomes COMPLETED with ${request.resultText === undefined ? 'no result' : 'the result you gave'}: the next call of ${tool} with these arguments returns it, and the tool does not run again.`;
    case ActionKind.release_not_executed:
      return `The tool will run once more: the next call of ${tool} with these arguments runs it exactly once. Only do this when you verified with the provider that the effect did not happen.`;
    case ActionKind.mark_dead:
      return `The lease of \`${record.owner ?? 'unknown'}\` ends now and it is fenced${request.overrideHeartbeat === true ? ' (its heartbeat is overridden: if it is alive after all, its next write fails)' : ' (refused while its heartbeat is fresh)'}: the next call of ${tool} finds the transition EXPIRED and runs it again only if nothing may have been spent (a safe-retry class whose boundary was not crossed); otherwise it hard-blocks until released.`;
  }
}

/** What running an action gave: the ledger and the record after it, or the ledger's refusal. */
export type ActionOutcome =
  | { readonly ok: true; readonly named: NamedLedger; readonly record: TransitionRecord }
  | {
      readonly ok: false;
      readonly code: string;
      readonly message: string;
      /** The record the refusal is about, when the ledger named one. */
      readonly record: TransitionRecord | null;
    };

function act(named: NamedLedger, key: string, request: ActionRequest): Promise<TransitionRecord> {
  const audit = { by: request.by, reason: request.reason };
  if (request.kind === ActionKind.mark_dead) {
    return named.ledger.markWorkerDead(key, {
      ...audit,
      ...(request.overrideHeartbeat === true ? { overrideHeartbeat: true } : {}),
    });
  }
  if (request.kind === ActionKind.release_not_executed) {
    return named.ledger.release(key, { verified: 'not_executed', ...audit });
  }
  const result = request.resultText === undefined ? {} : { result: JSON.parse(request.resultText) as JsonValue };
  return named.ledger.release(key, { verified: 'completed', ...result, ...audit });
}

/**
 * Run a checked action on `key` through the operator API of whichever of `ledgers` holds it; the
 * action reads the record once, in that ledger.
 */
export async function runAction(
  ledgers: readonly NamedLedger[],
  key: string,
  request: ActionRequest,
): Promise<ActionOutcome> {
  try {
    const done = await actWhereHeld(ledgers, (named) => act(named, key, request));
    if (done === undefined) {
      return { ok: false, code: 'ledger_not_found', message: `No transition \`${key}\``, record: null };
    }
    return { ok: true, named: done.ledger, record: done.value };
  } catch (error) {
    if (!(error instanceof GuardError)) throw error;
    return { ok: false, code: error.code, message: error.message, record: refusedRecord(error) };
  }
}
