/**
 * The MCP shapes the guards speak, declared structurally (JSON-RPC 2.0 messages, a transport, a tool
 * definition, a tool result), so no SDK type reaches the published declarations.
 */

/** A JSON-RPC request or notification id. */
export type JsonRpcId = string | number;

/** A JSON-RPC 2.0 request (with `id`) or notification (without). */
export interface JsonRpcRequest {
  readonly jsonrpc: '2.0';
  readonly id?: JsonRpcId;
  readonly method: string;
  readonly params?: Readonly<Record<string, unknown>>;
}

/** A JSON-RPC 2.0 error object. */
export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

/** A JSON-RPC 2.0 response: a result or an error. */
export interface JsonRpcResponse {
  readonly jsonrpc: '2.0';
  readonly id: JsonRpcId | null;
  readonly result?: Readonly<Record<string, unknown>>;
  readonly error?: JsonRpcErrorObject;
}

/** Any message on an MCP transport. */
export type JsonRpcMessage = JsonRpcRequest | JsonRpcResponse;

/**
 * A message transport: what the SDK's `StdioClientTransport`, `StdioServerTransport` and the
 * Streamable HTTP transports are. The proxy sets the callbacks before `start()`.
 */
export interface McpTransport {
  start(): Promise<void>;
  send(message: JsonRpcMessage, options?: { readonly relatedRequestId?: JsonRpcId }): Promise<void>;
  close(): Promise<void>;
  onmessage?: ((message: JsonRpcMessage, extra?: unknown) => void) | undefined;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
}

/** The hints a server gives about a tool (MCP `ToolAnnotations`); hints, never guarantees. */
export interface McpToolAnnotations {
  readonly title?: string;
  readonly readOnlyHint?: boolean;
  readonly destructiveHint?: boolean;
  readonly idempotentHint?: boolean;
  readonly openWorldHint?: boolean;
}

/** A tool as `tools/list` describes it. */
export interface McpToolDefinition {
  readonly name: string;
  readonly title?: string;
  readonly description?: string;
  readonly inputSchema: Readonly<Record<string, unknown>>;
  readonly outputSchema?: Readonly<Record<string, unknown>>;
  readonly annotations?: McpToolAnnotations;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** One content block of a tool result. */
export type McpContent = Readonly<Record<string, unknown>> & { readonly type: string };

/** A `tools/call` result. */
export interface McpCallToolResult {
  readonly content: readonly McpContent[];
  readonly structuredContent?: Readonly<Record<string, unknown>>;
  readonly isError?: boolean;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** Whether a message is a request or notification (it has a method). */
export function isRequest(message: JsonRpcMessage): message is JsonRpcRequest {
  return typeof (message as { method?: unknown }).method === 'string';
}

/** Whether a message is a response (no method, an id, a result or an error). */
export function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !isRequest(message) && ('result' in message || 'error' in message);
}
