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

/** What the pin store says about one tool definition. */
export type PinStatus = 'pinned' | 'new' | 'changed';

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
  approve(server: string, tool: string, by: string): Promise<boolean>;
  /** The pin of `tool`, or null. */
  get(server: string, tool: string): Promise<ToolPin | null>;
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
        const body = {
          hash: pin.hash,
          definition: pin.definition,
          pending: { hash, definition: pinnedDefinition(tool), seenAt: clock() },
          approvedBy: pin.approvedBy,
        };
        if (await write(key, pinRecord(key, server, tool.name, body, clock(), record), record)) return 'changed';
      }
      throw new McpPinStoreError(`The pin of tool \`${tool.name}\` of \`${server}\` keeps changing under us`);
    },
    async approve(server, tool, by) {
      const key = pinKey(server, tool);
      const record = await load(server, tool);
      if (record === null) return false;
      const pin = readPin(record, server, tool);
      if (pin.pending === null) return false;
      const body = { hash: pin.pending.hash, definition: pin.pending.definition, pending: null, approvedBy: by };
      return write(key, pinRecord(key, server, tool, body, clock(), record), record);
    },
    async get(server, tool) {
      const record = await load(server, tool);
      return record === null ? null : readPin(record, server, tool);
    },
  };
}
