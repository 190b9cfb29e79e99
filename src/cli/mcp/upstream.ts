/**
 * The upstream leg of `hyphae mcp`: a server started as a child process over stdio, or one reached
 * over Streamable HTTP.
 */
import type { McpTransport } from '../../adapters/mcp/types.js';
import { importSdk } from './load-sdk.js';

/** Where the upstream server is. */
export type UpstreamTarget =
  | { readonly kind: 'command'; readonly command: string; readonly args: readonly string[] }
  | { readonly kind: 'url'; readonly url: URL; readonly headers: Readonly<Record<string, string>> };

interface StdioClientModule {
  StdioClientTransport: new (params: {
    command: string;
    args: string[];
    env: Record<string, string>;
    stderr: 'inherit';
    cwd: string;
  }) => unknown;
}

interface HttpClientModule {
  StreamableHTTPClientTransport: new (
    url: URL,
    options: { requestInit: { headers: Record<string, string> } },
  ) => unknown;
}

function environment(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}

/** A factory of upstream connections (one per client session). */
export async function upstreamFactory(
  target: UpstreamTarget,
  context: { readonly env: NodeJS.ProcessEnv; readonly cwd: string },
): Promise<() => McpTransport> {
  if (target.kind === 'url') {
    const { StreamableHTTPClientTransport } = await importSdk<HttpClientModule>(
      '@modelcontextprotocol/sdk/client/streamableHttp.js',
    );
    return () =>
      new StreamableHTTPClientTransport(target.url, {
        requestInit: { headers: { ...target.headers } },
      }) as McpTransport;
  }
  const { StdioClientTransport } = await importSdk<StdioClientModule>('@modelcontextprotocol/sdk/client/stdio.js');
  // The upstream sees the environment it would see if the client started it directly.
  const env = environment(context.env);
  return () =>
    new StdioClientTransport({
      command: target.command,
      args: [...target.args],
      env,
      stderr: 'inherit',
      cwd: context.cwd,
    }) as McpTransport;
}
