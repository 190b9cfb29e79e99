/**
 * Transition identity: the args fingerprint, the transition key and the ticket index key.
 */
import { canonicalJson } from '../core/canonical-json.js';
import { fingerprint, sha256Hex } from '../core/fingerprint.js';
import type { SideEffectClass } from './envelope.js';
import type { LedgerScope, RecordKind } from './transition-record.js';

/** Schema tag of the transition key. */
export const TRANSITION_KEY_SCHEMA = 'hyphae.transition/v1';
/** Schema tag of the ticket index key. */
export const TICKET_KEY_SCHEMA = 'hyphae.ticket/v1';

/**
 * Fingerprint of a call's arguments, leaving out bookkeeping parameters and the declared provider
 * idempotency-key parameter (so a retry that swaps the key lands on the same transition).
 */
export function argsFingerprint(args: unknown, excluded: readonly string[] = []): string {
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
  readonly kind?: RecordKind;
  readonly scope: LedgerScope;
  readonly tool: string;
  readonly argsFingerprint: string;
  readonly sideEffectClass: SideEffectClass;
  readonly agentId: string;
  readonly policyVersion: string;
  readonly dispatchId?: string;
}

/**
 * SHA-256 hex of the RFC 8785 canonical JSON of the transition's identity.
 *
 * Tasks add `kind: 'task'` so a task and a tool of the same name never share a key.
 */
export function transitionKey(input: TransitionKeyInput): string {
  return sha256Hex(
    canonicalJson({
      schema: TRANSITION_KEY_SCHEMA,
      ...(input.kind === 'task' ? { kind: 'task' } : {}),
      scope: normalizeScope(input.scope),
      tool: input.tool,
      argsFingerprint: input.argsFingerprint,
      sideEffectClass: input.sideEffectClass,
      agentId: input.agentId,
      policyVersion: input.policyVersion,
      ...(input.dispatchId === undefined ? {} : { dispatchId: input.dispatchId }),
    }),
  );
}

/** The ticket index entry of a ticket in a run scope (thread and run; the node is not part of it). */
export function ticketKey(scope: LedgerScope, agentId: string, ticket: string): string {
  return sha256Hex(
    canonicalJson({ schema: TICKET_KEY_SCHEMA, agentId, threadId: scope.threadId, runId: scope.runId, ticket }),
  );
}
