/**
 * `hyphae mcp` over Streamable HTTP: serving clients with `--listen` (bearer token off loopback)
 * and reaching an upstream with `--url`.
 */
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { connectProxy, linesOf, SERVERS, SQLITE_LEDGER, textOf, useTempDirs, writeConfig } from './helpers.js';
import { everythingOverHttp, listenProxy } from './http-helpers.js';

const tempDir = useTempDirs();
const clients: Client[] = [];
afterEach(async () => {
  await Promise.allSettled(clients.splice(0).map((client) => client.close()));
});

async function httpClient(url: URL, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'hyphae-http-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers } }));
  clients.push(client);
  return client;
}

describe('hyphae mcp over Streamable HTTP', () => {
  it('serves clients over HTTP: a payment re-sent by a second client session runs once', async () => {
    const dir = tempDir();
    const config = writeConfig(
      dir,
      ...SQLITE_LEDGER,
      'fuses: { permission: { granted: [read, payments] } }',
      'mcp: { tools: { pay: { permissions: [payments] } } }',
    );
    const effects = join(dir, 'effects.txt');
    const { url } = await listenProxy(dir, ['-c', config, '--listen', '127.0.0.1:0', '--', ...SERVERS.test], {
      EFFECTS_FILE: effects,
    });
    const payment = { name: 'pay', arguments: { amount: 12, to: 'acct_9', delayMs: 500 } };

    const first = await httpClient(url);
    const second = await httpClient(url);
    const [a, b] = await Promise.all([first.callTool(payment), second.callTool(payment)]);
    const echo = await first.callTool({ name: 'echo', arguments: { text: 'over http' } });

    expect(linesOf(effects)).toEqual(['pay_1 12 acct_9']);
    expect(textOf(a)).toBe('paid 12 to acct_9 as pay_1');
    expect(textOf(b)).toBe('paid 12 to acct_9 as pay_1');
    expect(textOf(echo)).toBe('over http');
  });

  it('requires the bearer token when one is set, and refuses to listen off loopback without one', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER);
    const { url } = await listenProxy(dir, ['-c', config, '--listen', '127.0.0.1:0', '--', ...SERVERS.test], {
      HYPHAE_MCP_TOKEN: 'opensesame',
    });

    await expect(httpClient(url)).rejects.toThrow(/401|bearer/i);
    const authorized = await httpClient(url, { authorization: 'Bearer opensesame' });
    const echo = await authorized.callTool({ name: 'echo', arguments: { text: 'with token' } });
    const open = hyphae(dir, ['mcp', '-c', config, '--listen', '0.0.0.0:0', '--', ...SERVERS.test], {
      HYPHAE_MCP_TOKEN: '',
    });

    expect(textOf(echo)).toBe('with token');
    expect(open.code).toBe(2);
    expect(open.stderr).toContain('HYPHAE_MCP_TOKEN');
  });

  it('reaches an upstream over HTTP with `--url`', async () => {
    const dir = tempDir();
    const upstream = await everythingOverHttp(dir);
    const { client } = await connectProxy(dir, [], {
      config: writeConfig(dir, ...SQLITE_LEDGER),
      args: ['--url', upstream.href],
    });

    const listed = await client.listTools();
    const echo = await client.callTool({ name: 'echo', arguments: { message: 'via http upstream' } });
    const write = await client.callTool({ name: 'toggle-simulated-logging', arguments: {} });

    expect(listed.tools.map((tool) => tool.name)).toContain('echo');
    expect(textOf(echo)).toContain('via http upstream');
    expect(write.isError).toBe(true);
    expect(textOf(write)).toContain('NOT executed');
  });

  it('sends `--header` to an HTTP upstream (here a second proxy that needs a bearer token)', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER);
    const { url } = await listenProxy(dir, ['-c', config, '--listen', '127.0.0.1:0', '--', ...SERVERS.test], {
      HYPHAE_MCP_TOKEN: 'inner-secret',
    });
    const outerDir = tempDir();
    const { client } = await connectProxy(outerDir, [], {
      config: writeConfig(outerDir, ...SQLITE_LEDGER),
      args: ['--url', url.href, '--header', 'Authorization: Bearer inner-secret'],
    });

    const echo = await client.callTool({ name: 'echo', arguments: { text: 'two proxies' } });

    expect(textOf(echo)).toBe('two proxies');
  });
});
