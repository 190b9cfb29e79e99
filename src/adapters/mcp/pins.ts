/**
 * Tool pinning: each upstream tool's definition is hashed when first seen and the hash is pinned in
 * the ledger's store; a definition whose hash differs from its pin is quarantined until an operator
 * approves it. A pin is a record of kind `task` whose tool is `mcp.pin`, so every ledger driver
 * stores it and `hyphae transitions list --tool mcp.pin` shows it.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { sha256Hex } from '../../core/fingerprint.js';
import type { JsonValue } from '../../core/json.js';
import { GuardError } from '../../errors.js';
import { unreadableArgument } from '../../invalid-argument.js';
import type { LedgerStorage } from '../../storage/ledger-storage.js';
import type { TransitionRecord } from '../../storage/transition-record.js';
import type { McpToolDefinition } from './types.js';

/** The tool name of pin records. */
export const PIN_TOOL = 'mcp.pin';

/** What the pin store says about one tool definition; `changed` and `rejected` are quarantined. */
export type PinStatus = 'pinned' | 'new' | 'changed' | 'rejected';

/** An operator's last review of a changed definition. */
export interface PinReview {
  readonly action: 'approved' | 'rejected';
  /** The hash of the definition reviewed. */
  readonly hash: string;
  readonly by: string;
  readonly reason: string | null;
  readonly at: number;
}

/** Who reviews a quarantined definition, and why. */
export interface PinReviewInput {
  readonly by: string;
  readonly reason?: string;
  /** The pending hash the operator looked at: refused when another definition is pending now. */
  readonly hash?: string;
}

/** What a review did: the pin after it, or why it was refused. */
export type PinReviewResult =
  | { readonly ok: true; readonly pin: ToolPin }
  | {
      readonly ok: false;
      readonly code: 'pin_not_found' | 'pin_not_pending' | 'pin_changed';
      readonly message: string;
    };

/** A pin: the approved hash, and the hash last seen when it differs. */
export interface ToolPin {
  readonly server: string;
  readonly tool: string;
  readonly hash: string;
  /** The definition the hash was taken of. */
  readonly definition: JsonValue;
  /** A changed definition waiting for approval, or null. */
  readonly pending: { readonly hash: string; readonly definition: JsonValue; readonly seenAt: number } | null;
  readonly approvedBy: string | null;
  /** The last review (approval or rejection), when there was one. */
  readonly review?: PinReview | null;
}

/** The pin store a cannot-read answer fails closed in: every tool of the server is quarantined. */
export class McpPinStoreError extends GuardError {
  constructor(message: string, options: { readonly cause?: unknown } = {}) {
    super('mcp_pin_store_unavailable', message, options);
  }
}

/** The part of a definition a pin covers: name, title, description, schemas and annotations. */
export function pinnedDefinition(tool: McpToolDefinition): JsonValue {
  const out: Record<string, unknown> = { name: tool.name, description: tool.description ?? null };
  if (tool.title !== undefined) out.title = tool.title;
  out.inputSchema = tool.inputSchema ?? null;
  if (tool.outputSchema !== undefined) out.outputSchema = tool.outputSchema;
  if (tool.annotations !== undefined) out.annotations = tool.annotations;
  return JSON.parse(canonicalJson(out)) as JsonValue;
}

/** SHA-256 of a definition's canonical JSON. */
export function definitionHash(tool: McpToolDefinition): string {
  try {
    return sha256Hex(canonicalJson(pinnedDefinition(tool)));
  } catch (cause) {
    return unreadableArgument('definitionHash', 'tool', cause);
  }
}

/** The storage key of the pin of `tool` of `server`. */
export function pinKey(server: string, tool: string): string {
  return `mcp.pin:${sha256Hex(canonicalJson([server, tool]))}`;
}

function isPin(value: unknown): value is Omit<ToolPin, 'server' | 'tool'> {
  if (value === null || typeof value !== 'object') return false;
  const pin = value as Record<string, unknown>;
  return typeof pin.hash === 'string' && 'definition' in pin && 'pending' in pin;
}

function readPin(record: TransitionRecord, server: string, tool: string): ToolPin {
  const body = record.result as unknown;
  if (record.tool !== PIN_TOOL || !isPin(body)) {
    throw new McpPinStoreError(`The pin of tool \`${tool}\` of \`${server}\` is not a pin record`);
  }
  return { ...body, server, tool };
}

/** The pin a record of tool `mcp.pin` holds (its server and tool are its scope's thread and run). */
export function readPinRecord(record: TransitionRecord): ToolPin {
  return readPin(record, record.scope.threadId ?? '', record.scope.runId ?? '');
}

function bodyOf(pin: ToolPin): Omit<ToolPin, 'server' | 'tool'> {
  return {
    hash: pin.hash,
    definition: pin.definition,
    pending: pin.pending,
    approvedBy: pin.approvedBy,
    ...(pin.review === undefined ? {} : { review: pin.review }),
  };
}

function pinRecord(
  key: string,
  server: string,
  tool: string,
  body: Omit<ToolPin, 'server' | 'tool'>,
  now: number,
  previous: TransitionRecord | null,
): TransitionRecord {
  return {
    key,
    kind: 'task',
    tool: PIN_TOOL,
    agentId: previous?.agentId ?? 'mcp',
    policyVersion: previous?.policyVersion ?? '1',
    scope: { threadId: server, runId: tool },
    ticket: null,
    ticketKey: null,
    argsFingerprint: sha256Hex(canonicalJson([server, tool])),
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
    result: { ...body } as unknown as JsonValue,
    error: null,
    externalOperationRef: null,
    providerIdempotencyKey: null,
    firstAttemptAt: previous?.firstAttemptAt ?? now,
    operatorResolution: null,
    // Pins owe no receipt: they are policy, not transitions.
    receiptRef: 'none',
    createdAt: previous?.createdAt ?? now,
    updatedAt: now,
    completedAt: previous?.completedAt ?? now,
  };
}

/** Pins over a ledger store. */
export interface PinStore {
  /** Compare `tool` with its pin, pinning it when first seen and noting a changed definition. */
  check(server: string, tool: McpToolDefinition): Promise<PinStatus>;
  /** Approve the pending definition of `tool` (the one last seen); false when nothing is pending. */
  approve(server: string, tool: string, by: string | PinReviewInput): Promise<boolean>;
  /**
   * Approve or reject the pending definition of `tool`, saying why when refused. An approval pins
   * it; a rejection keeps the old pin and keeps that definition quarantined without asking again
   * (a later, different definition is pending anew).
   */
  review(server: string, tool: string, action: 'approve' | 'reject', input: PinReviewInput): Promise<PinReviewResult>;
  /** The pin of `tool`, or null. */
  get(server: string, tool: string): Promise<ToolPin | null>;
  /** One page of pins, most recently changed first, through the store's own `list`. */
  list(options?: { readonly limit?: number; readonly cursor?: string }): Promise<{
    readonly pins: readonly ToolPin[];
    readonly nextCursor: string | null;
  }>;
}

/** A pin store on `storage`; a read that fails or finds a malformed pin throws {@link McpPinStoreError}. */
export function createPinStore(storage: LedgerStorage, clock: () => number = Date.now): PinStore {
  async function load(server: string, tool: string): Promise<TransitionRecord | null> {
    try {
      return await storage.get(pinKey(server, tool));
    } catch (error) {
      throw new McpPinStoreError(`The pin of tool \`${tool}\` of \`${server}\` cannot be read`, { cause: error });
    }
  }

  async function write(key: string, next: TransitionRecord, previous: TransitionRecord | null): Promise<boolean> {
    try {
      if (previous === null) return (await storage.create(next)).created;
      return await storage.update(key, previous.version, next);
    } catch (error) {
      throw new McpPinStoreError(`The pin of tool \`${next.scope.runId}\` cannot be written`, { cause: error });
    }
  }

  async function review(
    server: string,
    tool: string,
    action: 'approve' | 'reject',
    input: PinReviewInput,
  ): Promise<PinReviewResult> {
    if (typeof input.by !== 'string' || input.by.trim() === '') {
      throw new GuardError('invalid_argument', 'A pin review needs a non-empty `by`');
    }
    const key = pinKey(server, tool);
    const record = await load(server, tool);
    const name = `\`${tool}\` of \`${server}\``;
    if (record === null) return { ok: false, code: 'pin_not_found', message: `Tool ${name} has no pin` };
    const pin = readPin(record, server, tool);
    if (pin.pending === null) {
      return {
        ok: false,
        code: 'pin_not_pending',
        message: `Tool ${name} has no changed definition waiting for review`,
      };
    }
    if (input.hash !== undefined && input.hash !== pin.pending.hash) {
      return {
        ok: false,
        code: 'pin_changed',
        message: `The definition of tool ${name} changed again since it was reviewed; review the one pending now`,
      };
    }
    const now = clock();
    const verdict: PinReview = {
      action: action === 'approve' ? 'approved' : 'rejected',
      hash: pin.pending.hash,
      by: input.by,
      reason: input.reason ?? null,
      at: now,
    };
    const body =
      action === 'approve'
        ? {
            hash: pin.pending.hash,
            definition: pin.pending.definition,
            pending: null,
            approvedBy: input.by,
            review: verdict,
          }
        : { ...bodyOf(pin), pending: null, review: verdict };
    const next = pinRecord(key, server, tool, body, now, record);
    if (!(await write(key, next, record))) {
      return { ok: false, code: 'pin_changed', message: `The pin of tool ${name} changed while reviewing; try again` };
    }
    return { ok: true, pin: readPin(next, server, tool) };
  }

  return {
    async check(server, tool) {
      const key = pinKey(server, tool.name);
      const hash = definitionHash(tool);
      for (let attempt = 0; attempt < 5; attempt++) {
        const record = await load(server, tool.name);
        if (record === null) {
          const body = { hash, definition: pinnedDefinition(tool), pending: null, approvedBy: null };
          if (await write(key, pinRecord(key, server, tool.name, body, clock(), null), null)) return 'new';
          continue;
        }
        const pin = readPin(record, server, tool.name);
        if (pin.hash === hash) return 'pinned';
        if (pin.pending?.hash === hash) return 'changed';
        if (pin.review?.action === 'rejected' && pin.review.hash === hash) return 'rejected';
        const body = {
          ...bodyOf(pin),
          pending: { hash, definition: pinnedDefinition(tool), seenAt: clock() },
        };
        if (await write(key, pinRecord(key, server, tool.name, body, clock(), record), record)) return 'changed';
      }
      throw new McpPinStoreError(`The pin of tool \`${tool.name}\` of \`${server}\` keeps changing under us`);
    },
    async approve(server, tool, by) {
      const input = typeof by === 'string' ? { by } : by;
      return (await review(server, tool, 'approve', input)).ok;
    },
    review,
    async get(server, tool) {
      const record = await load(server, tool);
      return record === null ? null : readPin(record, server, tool);
    },
    async list(options = {}) {
      let page: Awaited<ReturnType<LedgerStorage['list']>>;
      try {
        page = await storage.list({
          tool: PIN_TOOL,
          limit: options.limit ?? 100,
          ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
        });
      } catch (error) {
        throw new McpPinStoreError('The pins cannot be listed', { cause: error });
      }
      return { pins: page.records.map(readPinRecord), nextCursor: page.nextCursor };
    },
  };
}
