/**
 * The policy of the MCP guards (the `mcp` section of `hyphae.yaml`, camelCase), and what it makes of
 * an upstream tool: its side-effect class and the scopes it needs. Annotations are hints from the
 * server, so the policy wins wherever it speaks.
 */

import type { McpSecretsAction, McpToolPolicy } from '../../boundary/mcp-tool-policy.js';
import { unreadableArgument } from '../../invalid-argument.js';
import type { SideEffectClass } from '../../records/envelope.js';
import type { McpToolDefinition } from './types.js';

export type { McpSecretsAction, McpToolPolicy } from '../../boundary/mcp-tool-policy.js';

/**
 * What a client's cancellation of a call of a class that may not run twice (`keyed_mutate`,
 * `non_idempotent_mutate`, `irreversible`) does: `finish` lets the upstream call run to its end and
 * records its outcome, so a retry gets the result; `forward` passes the cancellation to the server
 * and records the call as UNKNOWN.
 */
export type McpCancelAction = 'finish' | 'forward';

/** The policy of the MCP guards; every field has a safe default. */
export interface McpPolicy {
  /** Who calls; the ledger scope's thread. Default `default`. */
  readonly principal?: string;
  /** The session a retried call must share to be recognised; the ledger scope's run. Default `default`. */
  readonly session?: string;
  /** The visible tools; absent: every tool the server lists. */
  readonly allow?: readonly string[];
  /** Scopes granted to the session (the permission fuse's `granted`). Default `['read']`. */
  readonly granted?: readonly string[];
  /** Permission denials in one session that stop it. Default 3. */
  readonly maxDenials?: number;
  /** A side-effecting call with the same arguments this soon after the first is a retry. Default 10 minutes. */
  readonly retryWindowMs?: number;
  /** Pin tool definitions and quarantine changed ones. Default `true` (needs a ledger). */
  readonly pinning?: boolean;
  /** Default `refuse`. */
  readonly secrets?: McpSecretsAction;
  /** Default `finish`. */
  readonly cancel?: McpCancelAction;
  readonly budget?: { readonly maxCalls?: number; readonly maxUsd?: number };
  /**
   * How long a stopped session (budget spent, `maxDenials` reached) stays stopped; after it, the
   * stop is lifted and the budget, denials and loop window start over. Default: none, the stop
   * lasts until the client starts a new session.
   */
  readonly cooldownMs?: number;
  readonly tools?: Readonly<Record<string, McpToolPolicy>>;
}

/** The scopes a session is granted when the policy names none. */
export const DEFAULT_GRANTED: readonly string[] = Object.freeze(['read']);

/** The policy of tool `name` (empty when none is written). */
export function toolPolicy(policy: McpPolicy, name: string): McpToolPolicy {
  const tools = policy.tools ?? {};
  return (Object.hasOwn(tools, name) ? tools[name] : undefined) ?? {};
}

/**
 * The class of an upstream tool: the policy's, else from annotations — `readOnlyHint` → `read`,
 * `idempotentHint` → `idempotent_mutate`, anything else (no hints at all) → `non_idempotent_mutate`.
 */
export function sideEffectClassOf(tool: McpToolDefinition, own: McpToolPolicy): SideEffectClass {
  try {
    if (own.sideEffectClass !== undefined) return own.sideEffectClass;
    const hints = tool.annotations ?? {};
    if (hints.readOnlyHint === true) return 'read';
    if (hints.idempotentHint === true) return 'idempotent_mutate';
    return 'non_idempotent_mutate';
  } catch (cause) {
    return unreadableArgument('sideEffectClassOf', 'tool', cause);
  }
}

/** The scope every tool the server may call destructive needs besides `write`. */
export const DESTRUCTIVE_SCOPE = 'destructive';

/**
 * The scopes an upstream tool needs: the policy's, else `read` for a read, else `write`, plus
 * `destructive` unless the server says `destructiveHint: false` (MCP's default for a tool that is
 * not read-only is destructive) — so a destructive tool runs only where that scope was granted.
 */
export function permissionsOf(tool: McpToolDefinition, own: McpToolPolicy): readonly string[] {
  try {
    if (own.permissions !== undefined) return own.permissions;
    if (sideEffectClassOf(tool, own) === 'read') return ['read'];
    return tool.annotations?.destructiveHint === false ? ['write'] : ['write', DESTRUCTIVE_SCOPE];
  } catch (cause) {
    return unreadableArgument('permissionsOf', 'tool', cause);
  }
}
