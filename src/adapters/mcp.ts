/**
 * `hyphae/mcp`: guards for the Model Context Protocol — the guarding proxy that `hyphae mcp` runs
 * (over any pair of transports), the guard of one upstream server's tools, and guards for servers
 * and clients built with the SDK. The SDK is an optional peer; every type here is structural.
 *
 * @module
 */

export { APPROVAL_TOOL, approvalKey, type McpElicit } from './mcp/approvals.js';
export { IDEMPOTENCY_KEY_META, idempotencyKeyOf } from './mcp/call-identity.js';
export { type Catalogue, type CatalogueEntry, type HiddenReason, McpToolHiddenError } from './mcp/catalogue.js';
export {
  createMcpGuard,
  type McpAnswer,
  type McpForward,
  type McpGuard,
  type McpGuardEvent,
  type McpGuardOptions,
  type McpToolCall,
} from './mcp/create-mcp-guard.js';
export { createMcpProxy, type McpProxy, type McpProxyOptions } from './mcp/create-mcp-proxy.js';
export { type GuardedClient, guardClient, type ToolCallingClient } from './mcp/guard-client.js';
export {
  type GuardedServerTools,
  guardServerTools,
  type ServerToolConfig,
  type ServerToolExtra,
  type ServerToolHandler,
  type ToolRegisteringServer,
} from './mcp/guard-server-tools.js';
export {
  createPinStore,
  definitionHash,
  McpPinStoreError,
  PIN_TOOL,
  type PinStatus,
  type PinStore,
  type ToolPin,
} from './mcp/pins.js';
export {
  DESTRUCTIVE_SCOPE,
  type McpPolicy,
  type McpSecretsAction,
  type McpToolPolicy,
  permissionsOf,
  sideEffectClassOf,
} from './mcp/policy.js';
export { type SecretScan, scanSecrets } from './mcp/secrets.js';
export { McpUpstreamError, REFUSAL_META, REPLAY_META } from './mcp/tool-results.js';
export type {
  JsonRpcErrorObject,
  JsonRpcId,
  JsonRpcMessage,
  JsonRpcRequest,
  JsonRpcResponse,
  McpCallToolResult,
  McpContent,
  McpToolAnnotations,
  McpToolDefinition,
  McpTransport,
} from './mcp/types.js';
export * from './shared/pipeline-api.js';
