/**
 * Tool pinning: each upstream tool's definition is hashed when first seen and the hash is pinned in
 * the ledger; a definition whose hash differs from its pin is quarantined until an operator
 * approves it. A pin is one of the ledger's policy records, family `mcp.pin`, so every ledger
 * driver stores it and `hyphae transitions list --tool mcp.pin` shows it.
 */
import { canonicalJson } from '../../core/canonical-json.js';
import { sha256Hex } from '../../core/fingerprint.js';
import { InvalidArgumentError } from '../../core/guard-error.js';
import type { JsonValue } from '../../core/json.js';
import { GuardError } from '../../errors.js';
import { objectArgument, readArgument, unreadableArgument } from '../../invalid-argument.js';
import type { GuardRecords, PolicyRecord } from '../../ledger/guard-records.js';
import type { Ledger } from '../../ledger/types.js';
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

function readPin(record: PolicyRecord, server: string, tool: string): ToolPin {
  const body = record.body as unknown;
  if (record.tool !== PIN_TOOL || !isPin(body)) {
    throw new McpPinStoreError(`The pin of tool \`${tool}\` of \`${server}\` is not a pin record`);
  }
  return { ...body, server, tool };
}

/** The pin a policy record of family `mcp.pin` holds (its server and tool are its scope's thread and run). */
export function readPinRecord(record: PolicyRecord): ToolPin {
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

/**
 * A pin store on the records of `ledger` (the ledger's policy records of family `mcp.pin`); a read
 * that fails or finds a malformed pin throws {@link McpPinStoreError}.
 */
export function createPinStore(ledger: Pick<Ledger, 'records'>, clock: () => number = Date.now): PinStore {
  objectArgument('createPinStore', 'ledger', ledger);
  const records = readArgument('createPinStore', 'ledger', () => {
    const found = ledger.records as GuardRecords | undefined;
    if (found === null || typeof found !== 'object' || typeof found.getPolicy !== 'function') {
      throw new InvalidArgumentError('createPinStore', 'ledger', 'must be a ledger: it has no `records`');
    }
    return found;
  });
  async function load(server: string, tool: string): Promise<PolicyRecord | null> {
    try {
      return await records.getPolicy(pinKey(server, tool));
    } catch (error) {
      throw new McpPinStoreError(`The pin of tool \`${tool}\` of \`${server}\` cannot be read`, { cause: error });
    }
  }

  /** Write the pin of `tool` of `server` over `previous` (null: the first); false when another write came first. */
  async function write(
    server: string,
    tool: string,
    body: Omit<ToolPin, 'server' | 'tool'>,
    previous: PolicyRecord | null,
  ): Promise<boolean> {
    const input = {
      key: pinKey(server, tool),
      tool: PIN_TOOL,
      scope: { threadId: server, runId: tool },
      body: { ...body } as unknown as JsonValue,
    };
    try {
      return (await records.putPolicy(input, previous?.version ?? null)) !== null;
    } catch (error) {
      throw new McpPinStoreError(`The pin of tool \`${tool}\` cannot be written`, { cause: error });
    }
  }

  async function review(
    server: string,
    tool: string,
    action: 'approve' | 'reject',
    input: PinReviewInput,
  ): Promise<PinReviewResult> {
    if (typeof input.by !== 'string' || input.by.trim() === '') {
      throw new InvalidArgumentError('review', 'input.by', 'is required (who reviews the pin)');
    }
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
    if (!(await write(server, tool, body, record))) {
      return { ok: false, code: 'pin_changed', message: `The pin of tool ${name} changed while reviewing; try again` };
    }
    return { ok: true, pin: { ...body, server, tool } };
  }

  return {
    async check(server, tool) {
      const hash = definitionHash(tool);
      for (let attempt = 0; attempt < 5; attempt++) {
        const record = await load(server, tool.name);
        if (record === null) {
          const body = { hash, definition: pinnedDefinition(tool), pending: null, approvedBy: null };
          if (await write(server, tool.name, body, null)) return 'new';
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
        if (await write(server, tool.name, body, record)) return 'changed';
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
      let page: Awaited<ReturnType<GuardRecords['listPolicies']>>;
      try {
        page = await records.listPolicies(PIN_TOOL, options);
      } catch (error) {
        throw new McpPinStoreError('The pins cannot be listed', { cause: error });
      }
      return { pins: page.records.map(readPinRecord), nextCursor: page.nextCursor };
    },
  };
}
