/**
 * Guards for a server built with the SDK: register tools through {@link guardServerTools} instead
 * of `server.registerTool`, and every call of their handlers runs the guard pipeline first.
 */
import { createMcpGuard, type McpGuard, type McpGuardOptions } from './create-mcp-guard.js';
import { McpUpstreamError } from './tool-results.js';
import type { McpCallToolResult, McpToolAnnotations, McpToolDefinition } from './types.js';

/** What `registerTool` of an SDK `McpServer` takes as its config, as far as the guards read it. */
export interface ServerToolConfig {
  readonly title?: string;
  readonly description?: string;
  readonly annotations?: McpToolAnnotations;
  readonly [key: string]: unknown;
}

/** The `extra` an SDK server passes a tool handler, as far as the guards read it. */
export interface ServerToolExtra {
  readonly signal?: AbortSignal;
  readonly requestId?: string | number;
  readonly _meta?: Readonly<Record<string, unknown>>;
}

/** An SDK `McpServer`, structurally: its `registerTool`. */
export interface ToolRegisteringServer {
  registerTool(name: string, config: never, handler: never): unknown;
}

/** A tool handler: the (SDK-validated) arguments and the request's extra. */
export type ServerToolHandler = (
  args: never,
  extra: never,
) => McpCallToolResult | Promise<McpCallToolResult> | Readonly<Record<string, unknown>>;

/** The registrar {@link guardServerTools} returns. */
export interface GuardedServerTools {
  readonly guard: McpGuard;
  /** `server.registerTool(name, config, handler)` with the handler behind the guards; returns what the server returns. */
  registerTool<C extends ServerToolConfig, H extends ServerToolHandler>(name: string, config: C, handler: H): unknown;
}

/**
 * Put the guard pipeline in front of the tools of an SDK-built server. Pinning is off by default
 * (the server trusts its own definitions); the SDK has already checked the arguments against the
 * tool's schema, so `policy.tools.<name>.schema` adds checks of its own.
 *
 * @example
 * import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
 * import { guardServerTools } from 'hyphae/mcp';
 *
 * const server = new McpServer({ name: 'payments', version: '1.0.0' });
 * const tools = guardServerTools(server, { ledger, policy: { granted: ['read', 'write', 'destructive'] } });
 * tools.registerTool('pay', { inputSchema: { amount: z.number() } }, async ({ amount }) => charge(amount));
 */
export function guardServerTools(server: ToolRegisteringServer, options: McpGuardOptions = {}): GuardedServerTools {
  const guard = createMcpGuard({
    ...options,
    policy: { pinning: false, ...options.policy },
  });
  const definitions: McpToolDefinition[] = [];
  let ready: Promise<void> = Promise.resolve();
  let calls = 0;

  return {
    guard,
    registerTool(name, config, handler) {
      const definition: McpToolDefinition = {
        name,
        inputSchema: { type: 'object' },
        ...(config.title === undefined ? {} : { title: config.title }),
        ...(config.description === undefined ? {} : { description: config.description }),
        ...(config.annotations === undefined ? {} : { annotations: config.annotations }),
      };
      definitions.push(definition);
      const listed = [...definitions];
      ready = ready.then(() => guard.observeTools(listed, 'replace'));
      const body = handler as unknown as (args: unknown, extra: unknown) => unknown;
      const guarded = async (...params: unknown[]): Promise<McpCallToolResult> => {
        // A tool without an input schema gets only `extra`.
        const [args, extra] = params.length >= 2 ? params : [{}, params[0]];
        const context = (extra ?? {}) as ServerToolExtra;
        await ready;
        const answer = await guard.callTool(
          {
            name,
            args,
            meta: context._meta,
            rpcId: context.requestId ?? `local-${++calls}`,
            ...(context.signal === undefined ? {} : { signal: context.signal }),
          },
          async (checked) =>
            (await (params.length >= 2 ? body(checked, extra) : body(extra, undefined))) as McpCallToolResult,
        );
        // A cancelled request gets no response: its answer is kept for the retry.
        if (context.signal?.aborted !== true) await answer.delivered?.();
        if ('error' in answer) throw new McpUpstreamError(answer.error);
        return answer.result;
      };
      return (server.registerTool as (n: string, c: unknown, h: unknown) => unknown)(name, config, guarded);
    },
  };
}
