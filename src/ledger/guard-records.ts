/**
 * The records a guard keeps in the ledger's store beside the transitions, written through the
 * ledger so the record's shape, its clock and its agent are the ledger's:
 *
 * - **policy records**: a guard's own versioned state (an MCP tool pin). Kind `task`, outcome
 *   `COMPLETED` at boundary `not_crossed`, no ticket, no receipt: policy, not a transition. Written
 *   by compare-and-set on the version, so two writers never both win.
 * - **held calls**: a call that did not run and waits for an operator (an MCP call that needs an
 *   approval). Kind `tool`, `BLOCKED` at `not_crossed`, class `non_idempotent_mutate`, so nothing
 *   ever claims it as a transition; an operator releases it with `release(key, { verified:
 *   'not_executed' })` (run it) or `{ verified: 'completed', result }` (answer it without running).
 *   A release is spent once, by the call whose ticket the record then keeps.
 * - **calls by ticket**: the transition a pipeline call id (a ticket) of a scope resolved to.
 */
import { canonicalJson } from '../core/canonical-json.js';
import type { Clock } from '../core/clock.js';
import { sha256Hex } from '../core/fingerprint.js';
import { InvalidArgumentError } from '../core/guard-error.js';
import type { JsonValue } from '../core/json.js';
import { GuardError } from '../errors.js';
import { readOptions, recordArgument, stringArgument } from '../invalid-argument.js';
import type { LedgerScope, TransitionRecord } from '../records/transition-record.js';
import type { LedgerStorage } from '../storage/ledger-storage.js';
import { ticketKey } from './transition-key.js';

/** Who approves a held call, and why. */
export interface HeldCallApproval {
  readonly by: string;
  readonly reason: string;
}

/** A policy record: a guard's versioned state under a key of its own. */
export interface PolicyRecord {
  readonly key: string;
  /** The record family (`mcp.pin`): `hyphae transitions list --tool` lists one family. */
  readonly tool: string;
  readonly scope: LedgerScope;
  readonly body: JsonValue;
  /** The store's version: pass it to `put` to replace this record. */
  readonly version: number;
  readonly createdAt: number;
  readonly updatedAt: number;
}

/** What a policy record is written with. */
export interface PolicyRecordInput {
  readonly key: string;
  readonly tool: string;
  readonly scope: LedgerScope;
  readonly body: JsonValue;
}

/** What a held call is written with. */
export interface HeldCallInput {
  readonly key: string;
  readonly tool: string;
  readonly scope: LedgerScope;
  /** The ticket of the call it holds; the record keeps the ticket of the call that spends it. */
  readonly ticket: string;
  /** Why it is held: the error a reader of the record sees. */
  readonly code: string;
  readonly message: string;
}

/**
 * Spending a held call's release on the call with a ticket: `mine` (this call may run: it spent
 * the release now, or it is the call that spent it), `theirs` (another call spent it), `lost` (a
 * concurrent spender wrote first: read again), `unreleased` (no operator released it to run).
 */
export type HeldCallSpend = 'mine' | 'theirs' | 'lost' | 'unreleased';

/** The ledger's records beside its transitions. */
export interface GuardRecords {
  /** The transition the call `ticket` of `scope` resolved to, or null. */
  byTicket(scope: LedgerScope, ticket: string): Promise<TransitionRecord | null>;
  /** The policy record under `key`, or null; refused when the record there is not a policy record. */
  getPolicy(key: string): Promise<PolicyRecord | null>;
  /**
   * Write a policy record when the one stored is still at `version` (null: none is stored yet).
   * Resolves with the record written, or null when another writer came first.
   */
  putPolicy(input: PolicyRecordInput, version: number | null): Promise<PolicyRecord | null>;
  /** One page of the policy records of family `tool`, most recently changed first. */
  listPolicies(
    tool: string,
    page?: { readonly limit?: number; readonly cursor?: string },
  ): Promise<{ readonly records: readonly PolicyRecord[]; readonly nextCursor: string | null }>;
  /** The held call under `input.key`, written as held when none is stored yet. */
  hold(input: HeldCallInput): Promise<TransitionRecord>;
  /** Spend the operator's `not_executed` release of the held call `record` on the call `ticket`. */
  spend(record: TransitionRecord, ticket: string): Promise<HeldCallSpend>;
  /**
   * An operator approves the held call under `key`: its next call runs, once (`release` with
   * `not_executed`, refused with {@link GuardRecordError} when `key` is not a held call).
   */
  approve(key: string, audit: HeldCallApproval): Promise<TransitionRecord>;
}

/** A record in the store is not the kind of record a guard asked for. */
export class GuardRecordError extends GuardError {
  readonly key: string;
  constructor(key: string, message: string) {
    super('guard_record_malformed', message);
    this.key = key;
  }
}

/** A held call not yet answered: written by `hold`, not released to completion. */
function isHeld(record: TransitionRecord): boolean {
  return (
    record.kind === 'tool' &&
    record.outcome === 'BLOCKED' &&
    record.boundary === 'not_crossed' &&
    // Written by `hold` (`HeldCall`), or by the MCP proxy before held calls were guard records.
    (record.error?.name === 'HeldCall' || record.error?.name === 'ApprovalRequired')
  );
}

function isPolicy(record: TransitionRecord): boolean {
  return record.kind === 'task' && record.ticket === null && record.outcome === 'COMPLETED' && 'result' in record;
}

function policyOf(record: TransitionRecord): PolicyRecord {
  if (!isPolicy(record)) throw new GuardRecordError(record.key, `Record \`${record.key}\` is not a policy record`);
  return {
    key: record.key,
    tool: record.tool,
    scope: record.scope,
    body: record.result as JsonValue,
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/** The guard records of a ledger over `storage`. */
export function createGuardRecords(ctx: {
  readonly storage: LedgerStorage;
  readonly clock: Clock;
  readonly agentId: string;
  readonly policyVersion: string;
  /** The ledger's operator release as `not_executed`. */
  readonly releaseNotExecuted: (key: string, audit: HeldCallApproval) => Promise<TransitionRecord>;
}): GuardRecords {
  const { storage } = ctx;

  function policyRecord(input: PolicyRecordInput, previous: TransitionRecord | null, now: number): TransitionRecord {
    return {
      key: input.key,
      kind: 'task',
      tool: input.tool,
      agentId: previous?.agentId ?? ctx.agentId,
      policyVersion: ctx.policyVersion,
      scope: input.scope,
      ticket: null,
      ticketKey: null,
      argsFingerprint: sha256Hex(canonicalJson([input.tool, input.key])),
      sideEffectClass: 'read',
      retryPermission: 'safe_retry',
      spendability: 'multi_use',
      outcome: 'COMPLETED',
      boundary: 'not_crossed',
      owner: null,
      fence: 0,
      version: (previous?.version ?? 0) + 1,
      leaseUntil: null,
      lastHeartbeatAt: null,
      attempts: 0,
      result: input.body,
      error: null,
      externalOperationRef: null,
      providerIdempotencyKey: null,
      firstAttemptAt: previous?.firstAttemptAt ?? now,
      operatorResolution: null,
      // Policy owes no receipt: it records no side effect.
      receiptRef: 'none',
      createdAt: previous?.createdAt ?? now,
      updatedAt: now,
      completedAt: previous?.completedAt ?? now,
    };
  }

  function heldRecord(input: HeldCallInput, now: number): TransitionRecord {
    return {
      key: input.key,
      kind: 'tool',
      tool: input.tool,
      agentId: ctx.agentId,
      policyVersion: ctx.policyVersion,
      scope: input.scope,
      ticket: input.ticket,
      ticketKey: null,
      argsFingerprint: sha256Hex(input.ticket),
      sideEffectClass: 'non_idempotent_mutate',
      retryPermission: 'manual_reconciliation_required',
      spendability: 'single_use',
      outcome: 'BLOCKED',
      boundary: 'not_crossed',
      owner: null,
      fence: 0,
      version: 1,
      leaseUntil: null,
      lastHeartbeatAt: null,
      attempts: 0,
      error: { name: 'HeldCall', message: input.message, code: input.code },
      externalOperationRef: null,
      providerIdempotencyKey: null,
      firstAttemptAt: now,
      operatorResolution: null,
      receiptRef: 'none',
      createdAt: now,
      updatedAt: now,
      completedAt: null,
    };
  }

  /** A copy of a caller's input with its text fields checked: read once, refused as InvalidArgumentError. */
  function checked<T extends object>(fn: string, input: T, texts: readonly (keyof T & string)[]): T {
    recordArgument(fn, 'input', input, [...texts, 'scope']);
    const copy = { ...input };
    for (const field of texts) stringArgument(fn, `input.${field}`, copy[field] as string);
    recordArgument(fn, 'input.scope', (copy as { scope?: unknown }).scope, ['threadId', 'runId']);
    return copy;
  }

  return {
    async byTicket(scope, ticket) {
      stringArgument('records.byTicket', 'ticket', ticket);
      return storage.findByTicket(ticketKey(scope, ctx.agentId, ticket));
    },
    async getPolicy(key) {
      stringArgument('records.getPolicy', 'key', key);
      const record = await storage.get(key);
      return record === null ? null : policyOf(record);
    },
    async putPolicy(raw, version) {
      const input = checked('records.putPolicy', raw, ['key', 'tool']);
      if (version !== null && !Number.isSafeInteger(version)) {
        throw new InvalidArgumentError('records.putPolicy', 'version', 'must be an integer version or null');
      }
      const now = ctx.clock.now();
      if (version === null) {
        const created = await storage.create(policyRecord(input, null, now));
        return created.created ? policyOf(created.record) : null;
      }
      const previous = await storage.get(input.key);
      if (previous === null || previous.version !== version) return null;
      policyOf(previous);
      const next = policyRecord(input, previous, now);
      return (await storage.update(input.key, version, next)) ? policyOf(next) : null;
    },
    async listPolicies(tool, raw) {
      stringArgument('records.listPolicies', 'tool', tool);
      const page = readOptions('records.listPolicies', raw, ['limit', 'cursor'], 'page');
      const found = await storage.list({
        tool,
        kind: 'task',
        limit: page.limit ?? 100,
        ...(page.cursor === undefined ? {} : { cursor: page.cursor }),
      });
      return { records: found.records.filter(isPolicy).map(policyOf), nextCursor: found.nextCursor };
    },
    async hold(raw) {
      const input = checked('records.hold', raw, ['key', 'tool', 'ticket', 'code', 'message']);
      const stored = await storage.get(input.key);
      const record = stored ?? (await storage.create(heldRecord(input, ctx.clock.now()))).record;
      if (
        record.kind !== 'tool' ||
        record.tool !== input.tool ||
        (record.outcome !== 'BLOCKED' && record.operatorResolution === null)
      ) {
        throw new GuardRecordError(input.key, `Record \`${input.key}\` is not a held call`);
      }
      return record;
    },
    async approve(key, audit) {
      stringArgument('records.approve', 'key', key);
      recordArgument('records.approve', 'audit', audit, ['by', 'reason']);
      const record = await storage.get(key);
      if (record === null || !isHeld(record)) {
        throw new GuardRecordError(key, `Record \`${key}\` is not a call held for approval`);
      }
      return ctx.releaseNotExecuted(key, { by: audit.by, reason: audit.reason });
    },
    async spend(record, ticket) {
      recordArgument('records.spend', 'record', record, ['key', 'version', 'ticket', 'operatorResolution']);
      stringArgument('records.spend', 'ticket', ticket);
      const resolution = record.operatorResolution;
      if (resolution === null || resolution.verified !== 'not_executed') return 'unreleased';
      if (resolution.consumedAt !== null) return record.ticket === ticket ? 'mine' : 'theirs';
      const now = ctx.clock.now();
      const spent: TransitionRecord = {
        ...record,
        ticket,
        operatorResolution: { ...resolution, consumedAt: now },
        version: record.version + 1,
        updatedAt: now,
      };
      return (await storage.update(record.key, record.version, spent)) ? 'mine' : 'lost';
    },
  };
}
