/**
 * End-to-end parts: the SDK's own client, connected over stdio to `hyphae mcp` (run from the
 * sources through tsx) in front of a real upstream server started from node_modules.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterEach } from 'vitest';

const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

/** The upstream servers the tests put behind the proxy. */
export const SERVERS = {
  test: [process.execPath, '--import', TSX, fileURLToPath(new URL('./fixtures/test-server.ts', import.meta.url))],
  filesystem: [
    process.execPath,
    fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-filesystem/dist/index.js', import.meta.url)),
  ],
  schemas: [process.execPath, '--import', TSX, fileURLToPath(new URL('./fixtures/schema-server.ts', import.meta.url))],
  everything: [
    process.execPath,
    fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-everything/dist/index.js', import.meta.url)),
  ],
} as const;

/**
 * A temp folder per test, removed after it: after the test's proxies are closed, and with retries,
 * since a proxy's upstream child can still be writing its last file while the folder goes.
 */
export function useTempDirs(): () => string {
  const dirs: string[] = [];
  afterEach(async () => {
    await closeClients();
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'hyphae-mcp-'));
    dirs.push(dir);
    return dir;
  };
}

/** A connected SDK client and what the proxy wrote to standard error. */
export interface ProxiedClient {
  readonly client: Client;
  readonly stderr: () => string;
  /** The pid of the proxy process. */
  readonly pid: number | null;
  close(): Promise<void>;
}

const clients: ProxiedClient[] = [];
async function closeClients(): Promise<void> {
  await Promise.allSettled(clients.splice(0).map((c) => c.close()));
}
afterEach(closeClients);

/** Write `hyphae.yaml` in `dir`. */
export function writeConfig(dir: string, ...lines: string[]): string {
  const file = join(dir, 'hyphae.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

/** A ledger on SQLite in `dir` (no receipts). */
export const SQLITE_LEDGER = [
  'transition: { agent_id: mcp-test, policy_version: 1 }',
  'action_ledger: { storage: sqlite, path: ledger.db }',
];

/** Start `hyphae mcp [-c config] -- <server…>` and connect the SDK's client to it. */
export async function connectProxy(
  dir: string,
  server: readonly string[],
  options: { readonly config?: string; readonly env?: Record<string, string>; readonly args?: readonly string[] } = {},
): Promise<ProxiedClient> {
  const [command, ...serverArgs] = server;
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [
      '--import',
      TSX,
      MAIN,
      'mcp',
      ...(options.config === undefined ? [] : ['-c', options.config]),
      ...(options.args ?? []),
      ...(command === undefined ? [] : ['--', command, ...serverArgs]),
    ],
    cwd: dir,
    env: { ...(process.env as Record<string, string>), NO_COLOR: '1', ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'hyphae-test-client', version: '1.0.0' });
  await client.connect(transport);
  const proxied: ProxiedClient = { client, stderr: () => stderr, pid: transport.pid, close: () => client.close() };
  clients.push(proxied);
  return proxied;
}

/** Resolves once the proxy has written `text` to standard error (lines before it were written first). */
export async function stderrShows(proxied: ProxiedClient, text: string): Promise<string> {
  while (!proxied.stderr().includes(text)) await new Promise((resolve) => setTimeout(resolve, 20));
  return proxied.stderr();
}

/** The text of a tool result's content. */
export function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('\n');
}

/** The lines of a file, or none when it does not exist. */
export function linesOf(file: string): string[] {
  try {
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((line) => line !== '');
  } catch {
    return [];
  }
}
