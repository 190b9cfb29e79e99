/**
 * `hyphae mcp -- <command> [args…]`: the guarding proxy between a client on this process's stdio and
 * an upstream server started as a child process. Standard output carries the protocol only; events
 * go to standard error, never with arguments or results.
 */
import type { McpGuardEvent } from '../../adapters/mcp/create-mcp-guard.js';
import { createMcpGuard } from '../../adapters/mcp/create-mcp-guard.js';
import { createMcpProxy } from '../../adapters/mcp/create-mcp-proxy.js';
import type { McpTransport } from '../../adapters/mcp/types.js';
import type { HyphaeConfig } from '../../config/create-config.js';
import { type CommandContext, ExitCode } from '../command.js';
import { importSdk } from './load-sdk.js';
import { guardOptionsFrom, type PolicyOverrides } from './policy-from-config.js';

/** What the proxy connects to upstream. */
export interface UpstreamCommand {
  readonly command: string;
  readonly args: readonly string[];
}

interface StdioClientModule {
  StdioClientTransport: new (params: {
    command: string;
    args: string[];
    env: Record<string, string>;
    stderr: 'inherit';
    cwd: string;
  }) => unknown;
}
interface StdioServerModule {
  StdioServerTransport: new () => unknown;
}

/** One line on standard error per event worth an operator's eye. */
function describeEvent(event: McpGuardEvent): string | undefined {
  switch (event.type) {
    case 'tool_call':
      return event.status === 'ok'
        ? undefined
        : `hyphae mcp: \`${event.tool}\` ${event.status} (${event.code ?? 'error'})`;
    case 'secret_found':
      return `hyphae mcp: credential (${event.kinds.join(', ')}) in the ${event.where} of \`${event.tool}\`: ${event.action}`;
    case 'tools_observed':
      return event.hidden.length === 0
        ? undefined
        : `hyphae mcp: hidden tools: ${event.hidden.map((n) => `\`${n}\``).join(', ')}`;
    default:
      return undefined;
  }
}

function environment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** Run the proxy until either side closes. */
export async function runStdioProxy(
  upstreamCommand: UpstreamCommand,
  config: HyphaeConfig | undefined,
  overrides: PolicyOverrides,
  ctx: CommandContext,
): Promise<number> {
  const { StdioClientTransport } = await importSdk<StdioClientModule>('@modelcontextprotocol/sdk/client/stdio.js');
  const { StdioServerTransport } = await importSdk<StdioServerModule>('@modelcontextprotocol/sdk/server/stdio.js');
  const guard = createMcpGuard({
    ...guardOptionsFrom(config, overrides),
    onEvent: (event) => {
      const line = describeEvent(event);
      if (line !== undefined) ctx.err.line(line);
    },
  });
  // The upstream sees the environment it would see if the client started it directly.
  const upstream = new StdioClientTransport({
    command: upstreamCommand.command,
    args: [...upstreamCommand.args],
    env: environment(ctx.env),
    stderr: 'inherit',
    cwd: ctx.cwd,
  }) as McpTransport;
  const client = new StdioServerTransport() as McpTransport;
  const proxy = createMcpProxy({
    client,
    upstream,
    guard,
    onError: (error) => ctx.err.line(`hyphae mcp: ${error.message}`),
  });
  const stop = (): void => void proxy.close();
  process.stdin.once('end', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  try {
    await proxy.start();
    await proxy.closed;
  } finally {
    process.stdin.off('end', stop);
    process.off('SIGTERM', stop);
    process.off('SIGINT', stop);
    await config?.close();
  }
  return ExitCode.ok;
}
