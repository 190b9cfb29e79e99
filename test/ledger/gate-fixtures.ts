/**
 * Record and attempt builders for the pure gate resolver tests.
 */
import {
  CLASS_DEFAULTS,
  type GateAttempt,
  type RetryPermission,
  type SideEffectClass,
  type Spendability,
  type TransitionRecord,
} from '../../src/index.js';

export const NOW = 1_000_000;

/** A complete, valid record; `overrides` may set any field to anything (invalid values included). */
export function gateRecord(overrides: Partial<Record<keyof TransitionRecord, unknown>> = {}): TransitionRecord {
  const base: TransitionRecord = {
    key: 'k'.repeat(64),
    kind: 'tool',
    tool: 'send_payment',
    agentId: 'agent',
    policyVersion: 'p1',
    scope: {},
    ticket: 'call_1',
    ticketKey: null,
    argsFingerprint: 'f'.repeat(64),
    sideEffectClass: 'idempotent_mutate',
    retryPermission: 'safe_retry',
    spendability: 'multi_use',
    outcome: 'COMPLETED',
    boundary: 'not_crossed',
    owner: null,
    fence: 1,
    version: 2,
    leaseUntil: null,
    lastHeartbeatAt: NOW - 500,
    attempts: 1,
    error: null,
    externalOperationRef: null,
    providerIdempotencyKey: null,
    firstAttemptAt: NOW - 1_000,
    operatorResolution: null,
    receiptRef: null,
    createdAt: NOW - 1_000,
    updatedAt: NOW - 500,
    completedAt: null,
  };
  return { ...base, ...overrides } as TransitionRecord;
}

/** The class and its default retry permission and spendability. */
export function ofClass(sideEffectClass: SideEffectClass): {
  sideEffectClass: SideEffectClass;
  retryPermission: RetryPermission;
  spendability: Spendability;
} {
  return { sideEffectClass, ...CLASS_DEFAULTS[sideEffectClass] };
}

/** An IN_FLIGHT record owned by someone, with a lease ending at `leaseUntil`. */
export function inFlight(leaseUntil: number | null): Partial<Record<keyof TransitionRecord, unknown>> {
  return { outcome: 'IN_FLIGHT', owner: 'worker-a#1', leaseUntil };
}

export const noKey: GateAttempt = { providerIdempotencyKey: null, providerKeyParamDeclared: false };

/** An attempt of a tool that declares a provider key parameter. */
export function keyed(key: string | null, ttl?: number): GateAttempt {
  return {
    providerIdempotencyKey: key,
    providerKeyParamDeclared: true,
    ...(ttl === undefined ? {} : { providerIdempotencyKeyTtlMs: ttl }),
  };
}
