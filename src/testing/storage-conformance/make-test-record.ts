/**
 * A valid transition record for tests, with a fresh random key and ticket.
 */
import { randomBytes } from 'node:crypto';
import { unreadableArgument } from '../../invalid-argument.js';
import type { TransitionRecord } from '../../records/transition-record.js';

/** 2026-01-01T00:00:00Z: the fixed clock of test records. */
const TEST_EPOCH_MS = 1_767_225_600_000;

const hex = (bytes: number): string => randomBytes(bytes).toString('hex');

/**
 * Build a valid {@link TransitionRecord}: a fresh IN_FLIGHT claim of `send_payment` with a random
 * 64-hex key and a unique ticket, at version 1 and fence 1; `overrides` replace any field.
 *
 * @example
 * const record = makeTestRecord({ outcome: 'COMPLETED', result: { paid: true } });
 * await storage.create(record);
 */
export function makeTestRecord(overrides: Partial<TransitionRecord> = {}): TransitionRecord {
  try {
    const ticket = `call_${hex(8)}`;
    const base: TransitionRecord = {
      key: hex(32),
      kind: 'tool',
      tool: 'send_payment',
      agentId: 'conformance-agent',
      policyVersion: '2026.07.1',
      scope: { threadId: 'thread-1', runId: 'run-1', node: 'tools' },
      ticket,
      ticketKey: `run-1:${ticket}`,
      argsFingerprint: hex(32),
      sideEffectClass: 'keyed_mutate',
      retryPermission: 'retry_only_with_same_provider_idempotency_key',
      spendability: 'single_use',
      outcome: 'IN_FLIGHT',
      boundary: 'not_crossed',
      owner: 'owner-1',
      fence: 1,
      version: 1,
      leaseUntil: TEST_EPOCH_MS + 60_000,
      lastHeartbeatAt: TEST_EPOCH_MS,
      attempts: 1,
      error: null,
      externalOperationRef: null,
      providerIdempotencyKey: null,
      firstAttemptAt: TEST_EPOCH_MS,
      operatorResolution: null,
      receiptRef: null,
      createdAt: TEST_EPOCH_MS,
      updatedAt: TEST_EPOCH_MS,
      completedAt: null,
    };
    return { ...base, ...overrides };
  } catch (cause) {
    return unreadableArgument('makeTestRecord', 'overrides', cause);
  }
}
