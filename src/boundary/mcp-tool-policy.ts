/**
 * The guards of one tool behind the MCP proxy (its class, scopes, schema, paths, secrets, approval
 * and cost): one shape for the `mcp.tools` section of `hyphae.yaml` and for the MCP guards.
 */
import type { SideEffectClass } from '../records/envelope.js';

/** What a credential in a call's arguments or result does. */
export type McpSecretsAction = 'refuse' | 'redact' | 'off';

/** The policy of one upstream tool. */
export interface McpToolPolicy {
  readonly sideEffectClass?: SideEffectClass;
  readonly permissions?: readonly string[];
  /** A field spec or JSON Schema checked in addition to the server's `inputSchema`. */
  readonly schema?: Readonly<Record<string, unknown>>;
  /** Absolute roots that the `pathParams` arguments must stay inside. */
  readonly allowedPaths?: readonly string[];
  readonly pathParams?: readonly string[];
  readonly secrets?: McpSecretsAction;
  readonly approval?: 'required' | 'none';
  readonly costUsd?: number;
}
