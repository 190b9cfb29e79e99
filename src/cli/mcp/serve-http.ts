/**
 * `hyphae mcp --listen HOST:PORT`: the proxy served over Streamable HTTP at `/mcp`. Each client
 * session gets its own upstream connection and guard (its own fuses; the ledger is shared). A
 * bearer token is required for any host but loopback; on loopback, the Host header is checked
 * against DNS rebinding.
 */
import { randomUUID, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { McpProxy } from '../../adapters/mcp/create-mcp-proxy.js';
import type { McpTransport } from '../../adapters/mcp/types.js';
import type { CommandContext } from '../command.js';
import { importSdk } from './load-sdk.js';

/** Where to listen, and the bearer token clients must send (required off loopback). */
export interface ListenOptions {
  readonly host: string;
  readonly port: number;
  readonly token: string | undefined;
}

/** A listening proxy. */
export interface HttpProxyServer {
  /** `http://host:port/mcp`. */
  readonly url: string;
  close(): Promise<void>;
}

interface SessionTransport extends McpTransport {
  handleRequest(req: IncomingMessage, res: ServerResponse): Promise<void>;
}

interface HttpServerModule {
  StreamableHTTPServerTransport: new (options: {
    sessionIdGenerator: () => string;
    onsessioninitialized: (sessionId: string) => void;
    enableDnsRebindingProtection: boolean;
    allowedHosts?: string[];
  }) => unknown;
}

/** Whether `host` is a loopback address (no token needed there). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

function authorized(req: IncomingMessage, token: string | undefined): boolean {
  if (token === undefined) return true;
  const given = Buffer.from(req.headers.authorization ?? '');
  const wanted = Buffer.from(`Bearer ${token}`);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

function reject(res: ServerResponse, status: number, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }));
}

/** Listen on `options` and proxy each client session through `connect`. */
export async function serveHttp(
  options: ListenOptions,
  connect: (client: McpTransport) => McpProxy,
  ctx: CommandContext,
): Promise<HttpProxyServer> {
  const { StreamableHTTPServerTransport } = await importSdk<HttpServerModule>(
    '@modelcontextprotocol/sdk/server/streamableHttp.js',
  );
  const sessions = new Map<string, { readonly transport: SessionTransport; readonly proxy: McpProxy }>();
  let port = options.port;
  const loopback = isLoopback(options.host);

  async function open(req: IncomingMessage, res: ServerResponse): Promise<void> {
    let opened: string | undefined;
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      onsessioninitialized: (id) => {
        opened = id;
      },
      enableDnsRebindingProtection: loopback,
      ...(loopback ? { allowedHosts: [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`] } : {}),
    }) as SessionTransport;
    const proxy = connect(transport);
    await proxy.start();
    await transport.handleRequest(req, res);
    if (opened === undefined) {
      await proxy.close();
      return;
    }
    const id = opened;
    sessions.set(id, { transport, proxy });
    void proxy.closed.then(() => sessions.delete(id));
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (new URL(req.url ?? '/', 'http://proxy').pathname !== '/mcp') return reject(res, 404, 'Not found: use /mcp');
    if (!authorized(req, options.token)) {
      return reject(res, 401, 'A bearer token is required', { 'www-authenticate': 'Bearer' });
    }
    const id = req.headers['mcp-session-id'];
    if (typeof id === 'string') {
      const session = sessions.get(id);
      if (session === undefined) return reject(res, 404, 'Unknown session');
      return session.transport.handleRequest(req, res);
    }
    if (req.method !== 'POST') return reject(res, 400, 'A new session starts with an `initialize` POST');
    return open(req, res);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      ctx.err.line(`hyphae mcp: ${error instanceof Error ? error.message : String(error)}`);
      if (!res.headersSent) reject(res, 500, 'The proxy failed');
    });
  });
  await new Promise<void>((resolve, fail) => {
    server.once('error', fail);
    server.listen(options.port, options.host, () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const host = options.host.includes(':') && !options.host.startsWith('[') ? `[${options.host}]` : options.host;
  return {
    url: `http://${host}:${port}/mcp`,
    async close() {
      await Promise.allSettled([...sessions.values()].map((session) => session.proxy.close()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
