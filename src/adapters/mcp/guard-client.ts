/**
 * Guards for an agent that calls MCP tools through the SDK's `Client`: the same pipeline as the
 * proxy, in process — listed tools filtered, every call guarded.
 */
import { createMcpGuard, type McpGuard, type McpGuardOptions } from './create-mcp-guard.js';
import { McpUpstreamError } from './tool-results.js';
import type { JsonRpcErrorObject, McpCallToolResult, McpToolDefinition } from './types.js';

/** An SDK `Client`, structurally: the two methods the guards wrap. */
export interface ToolCallingClient {
  listTools(params?: {
    readonly cursor?: string;
  }): Promise<{ readonly tools: readonly unknown[]; readonly nextCursor?: string | undefined }>;
  callTool(
    params: {
      readonly name: string;
      readonly arguments?: Record<string, unknown>;
      readonly _meta?: Record<string, unknown>;
    },
    resultSchema?: undefined,
    options?: { readonly signal?: AbortSignal },
  ): Promise<unknown>;
}

/** The guarded client {@link guardClient} returns. */
export interface GuardedClient {
  readonly guard: McpGuard;
  /** Every page of the server's tools, filtered to those the agent may use. */
  listTools(): Promise<{ readonly tools: McpToolDefinition[] }>;
  /** A guarded call: a refusal is a tool result with `isError: true` that says the call did NOT happen. */
  callTool(
    params: {
      readonly name: string;
      readonly arguments?: Record<string, unknown>;
      readonly _meta?: Record<string, unknown>;
    },
    options?: { readonly signal?: AbortSignal },
  ): Promise<McpCallToolResult>;
}

function rpcErrorOf(error: unknown): JsonRpcErrorObject | undefined {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  return typeof code === 'number' && typeof message === 'string' ? { code, message } : undefined;
}

/**
 * Guard the tool calls an agent makes through an SDK client.
 *
 * @example
 * import { Client } from '@modelcontextprotocol/sdk/client/index.js';
 * import { guardClient } from 'hyphae/mcp';
 *
 * const tools = guardClient(client, { ledger, policy: { granted: ['read'] } });
 * const { tools: usable } = await tools.listTools();
 * const result = await tools.callTool({ name: 'search', arguments: { q: 'refund policy' } });
 */
export function guardClient(client: ToolCallingClient, options: McpGuardOptions = {}): GuardedClient {
  const guard = createMcpGuard(options);
  let listing: Promise<void> | undefined;
  let calls = 0;

  async function listAll(): Promise<McpToolDefinition[]> {
    const tools: McpToolDefinition[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor === undefined ? undefined : { cursor });
      tools.push(...(page.tools as McpToolDefinition[]));
      cursor = page.nextCursor;
    } while (cursor !== undefined && cursor !== '');
    await guard.observeTools(tools, 'replace');
    return tools;
  }

  return {
    guard,
    async listTools() {
      const pending = listAll();
      listing = pending.then(() => undefined);
      return { tools: guard.visibleTools(await pending) };
    },
    async callTool(params, callOptions = {}) {
      if (listing === undefined) listing = listAll().then(() => undefined);
      await listing;
      const answer = await guard.callTool(
        {
          name: params.name,
          args: params.arguments ?? {},
          meta: params._meta,
          rpcId: `client-${++calls}`,
          ...(callOptions.signal === undefined ? {} : { signal: callOptions.signal }),
        },
        async (args, signal) => {
          try {
            return (await client.callTool(
              { ...params, arguments: args as Record<string, unknown> },
              undefined,
              signal === undefined ? {} : { signal },
            )) as McpCallToolResult;
          } catch (error) {
            const rpc = rpcErrorOf(error);
            throw rpc === undefined ? error : new McpUpstreamError(rpc);
          }
        },
      );
      // A call its caller gave up on keeps its answer for the retry.
      callOptions.signal?.throwIfAborted();
      await answer.delivered?.();
      if ('error' in answer) {
        return {
          content: [{ type: 'text', text: `The call to \`${params.name}\` failed: ${answer.error.message}` }],
          isError: true,
        };
      }
      return answer.result;
    },
  };
}
