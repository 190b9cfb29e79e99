/**
 * Transition identity: the args fingerprint, the transition key and the ticket index key.
 */
import { fingerprint, sha256Hex } from '../core/fingerprint.js';
import {
  arrayArgument,
  InvalidArgumentError,
  kindOf,
  objectArgument,
  optionsOf,
  readArgument,
} from '../invalid-argument.js';
import type { SideEffectClass } from '../records/envelope.js';
import type { LedgerScope } from '../records/transition-record.js';

/** Schema tag of the transition key. */
export const TRANSITION_KEY_SCHEMA = 'hyphae.transition/v1';
/** Schema tag of the ticket index key. */
export const TICKET_KEY_SCHEMA = 'hyphae.ticket/v1';

/**
 * Fingerprint of a call's arguments, leaving out bookkeeping parameters and the declared provider
 * idempotency-key parameter (so a retry that swaps the key lands on the same transition).
 */
export function argsFingerprint(args: unknown, excluded: readonly string[] = []): string {
  arrayArgument('argsFingerprint', 'excluded', excluded);
  if (excluded.length === 0 || args === null || typeof args !== 'object' || Array.isArray(args)) {
    return fingerprint(args ?? null);
  }
  const kept: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (!excluded.includes(name)) kept[name] = value;
  }
  return fingerprint(kept);
}

/** Only the defined scope fields, so `{ runId: undefined }` and `{}` are one scope. */
export function normalizeScope(scope: LedgerScope | undefined): LedgerScope {
  const out: { threadId?: string; runId?: string; node?: string } = {};
  if (scope?.threadId !== undefined) out.threadId = scope.threadId;
  if (scope?.runId !== undefined) out.runId = scope.runId;
  if (scope?.node !== undefined) out.node = scope.node;
  return out;
}

/** Inputs of {@link transitionKey}. */
export interface TransitionKeyInput {
  readonly kind?: 'tool' | 'task';
  readonly scope: LedgerScope;
  readonly tool: string;
  readonly argsFingerprint: string;
  readonly sideEffectClass: SideEffectClass;
  readonly agentId: string;
  readonly policyVersion: string;
  readonly dispatchId?: string;
}

const quote = JSON.stringify;

/** The canonical JSON of a normalised scope: its members in code-unit order (node, runId, threadId). */
function scopeJson(scope: LedgerScope): string {
  let out = '';
  if (scope.node !== undefined) out += `,"node":${quote(scope.node)}`;
  if (scope.runId !== undefined) out += `,"runId":${quote(scope.runId)}`;
  if (scope.threadId !== undefined) out += `,"threadId":${quote(scope.threadId)}`;
  return `{${out.slice(1)}}`;
}

/**
 * SHA-256 hex of the RFC 8785 canonical JSON of the transition's identity:
 * `{ agentId, argsFingerprint, dispatchId?, kind?, policyVersion, schema, scope, sideEffectClass, tool }`.
 *
 * The members are written in their canonical order directly (strings serialise as in
 * `canonicalJson`); a test checks the text against `canonicalJson` of the same object. Tasks add
 * `kind: 'task'` so a task and a tool of the same name never share a key.
 */
export function transitionKey(input: TransitionKeyInput): string {
  const copy = optionsOf('transitionKey', input, false, 'input');
  for (const field of ['tool', 'argsFingerprint', 'sideEffectClass', 'agentId', 'policyVersion'] as const) {
    if (typeof copy[field] !== 'string') {
      throw new InvalidArgumentError('transitionKey', `input.${field}`, `must be a string, got ${kindOf(copy[field])}`);
    }
  }
  objectArgument('transitionKey', 'input.scope', copy.scope);
  return sha256Hex(readArgument('transitionKey', 'input', () => transitionKeyText(copy)));
}

/** The canonical JSON that {@link transitionKey} hashes. */
export function transitionKeyText(input: TransitionKeyInput): string {
  return transitionKeyTemplate(input).text(input.argsFingerprint, input.scope, input.dispatchId);
}

/** The parts of a transition key fixed for one tool of one ledger. */
export type TransitionKeyConstants = Pick<
  TransitionKeyInput,
  'kind' | 'tool' | 'sideEffectClass' | 'agentId' | 'policyVersion'
>;

/** Key texts of one tool of one ledger: the constant members are quoted once. */
export interface TransitionKeyTemplate {
  readonly constants: TransitionKeyConstants;
  /** The canonical JSON of the transition with these variable members. */
  text(argsFingerprint: string, scope: LedgerScope, dispatchId: string | undefined): string;
}

/** Quote the constant members of a tool's keys once, for {@link transitionKeyText}'s text. */
export function transitionKeyTemplate(constants: TransitionKeyConstants): TransitionKeyTemplate {
  const head = `{"agentId":${quote(constants.agentId)},"argsFingerprint":`;
  const middle =
    (constants.kind === 'task' ? ',"kind":"task"' : '') +
    `,"policyVersion":${quote(constants.policyVersion)},"schema":"${TRANSITION_KEY_SCHEMA}","scope":`;
  const tail = `,"sideEffectClass":${quote(constants.sideEffectClass)},"tool":${quote(constants.tool)}}`;
  return {
    constants,
    text: (argsFingerprint, scope, dispatchId) =>
      head +
      quote(argsFingerprint) +
      (dispatchId === undefined ? '' : `,"dispatchId":${quote(dispatchId)}`) +
      middle +
      scopeJson(normalizeScope(scope)) +
      tail,
  };
}

/** The ticket index entry of a ticket in a run scope (thread and run; the node is not part of it). */
export function ticketKey(scope: LedgerScope, agentId: string, ticket: string): string {
  objectArgument('ticketKey', 'scope', scope);
  return sha256Hex(readArgument('ticketKey', 'scope', () => ticketKeyText(scope, agentId, ticket)));
}

/** The canonical JSON that {@link ticketKey} hashes: `{ agentId, runId?, schema, threadId?, ticket }`. */
export function ticketKeyText(scope: LedgerScope, agentId: string, ticket: string): string {
  return (
    `{"agentId":${quote(agentId)}` +
    (scope.runId === undefined ? '' : `,"runId":${quote(scope.runId)}`) +
    `,"schema":"${TICKET_KEY_SCHEMA}"` +
    (scope.threadId === undefined ? '' : `,"threadId":${quote(scope.threadId)}`) +
    `,"ticket":${quote(ticket)}}`
  );
}
