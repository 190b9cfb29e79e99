/**
 * `hyphae mcp`: the guarding proxy between a client (on this process's stdio, or over Streamable
 * HTTP with `--listen`) and an upstream server. Over stdio, standard output carries the protocol
 * only; events go to standard error, never with arguments or results.
 */
import { createMcpGuard } from '../../adapters/mcp/create-mcp-guard.js';
import { createMcpProxy, type McpProxy } from '../../adapters/mcp/create-mcp-proxy.js';
import type { McpTransport } from '../../adapters/mcp/types.js';
import type { HyphaeConfig } from '../../config/create-config.js';
import { type CommandContext, ExitCode } from '../command.js';
import { createEventLines } from './describe-events.js';
import { importSdk } from './load-sdk.js';
import { guardOptionsFrom, type PolicyOverrides } from './policy-from-config.js';
import { type ListenOptions, serveHttp } from './serve-http.js';
import { type UpstreamTarget, upstreamFactory } from './upstream.js';

interface StdioServerModule {
  StdioServerTransport: new () => unknown;
}

/** Run the proxy until the client goes away (stdio) or the process is stopped (HTTP). */
export async function runProxy(
  target: UpstreamTarget,
  listen: ListenOptions | undefined,
  config: HyphaeConfig | undefined,
  overrides: PolicyOverrides,
  ctx: CommandContext,
): Promise<number> {
  const makeUpstream = await upstreamFactory(target, ctx);
  const guardOptions = guardOptionsFrom(config, overrides);
  // Shared by every session: what a listing found is written once per change, not once per session.
  const describeEvent = createEventLines();
  const connect = (client: McpTransport): McpProxy =>
    createMcpProxy({
      client,
      upstream: makeUpstream(),
      guard: createMcpGuard({
        ...guardOptions,
        onEvent: (event) => {
          for (const line of describeEvent(event)) ctx.err.line(line);
        },
      }),
      onError: (error) => ctx.err.line(`hyphae mcp: ${error.message}`),
      ...(config?.settings.mcp === undefined ? {} : { drainMs: config.settings.mcp.drainMs }),
    });
  let stop: () => void = () => {};
  const stopped = new Promise<void>((resolve) => {
    stop = resolve;
  });
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    if (listen !== undefined) {
      const server = await serveHttp(listen, connect, ctx);
      ctx.err.line(`hyphae mcp: listening on ${server.url}`);
      await stopped;
      await server.close();
      return ExitCode.ok;
    }
    const { StdioServerTransport } = await importSdk<StdioServerModule>('@modelcontextprotocol/sdk/server/stdio.js');
    const proxy = connect(new StdioServerTransport() as McpTransport);
    process.stdin.once('end', stop);
    await proxy.start();
    await Promise.race([proxy.closed, stopped]);
    process.stdin.off('end', stop);
    await proxy.close();
    return ExitCode.ok;
  } finally {
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await config?.close();
  }
}
