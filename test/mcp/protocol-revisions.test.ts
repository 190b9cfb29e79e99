/**
 * The proxy does not negotiate the protocol: `initialize` passes through, so a client of an older
 * revision talks to the server in that revision. Driven with raw JSON-RPC over the proxy's stdio
 * (string ids, as some clients send).
 */
import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { SERVERS, SQLITE_LEDGER, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();
const MAIN = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const children: ChildProcessWithoutNullStreams[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGTERM');
});

/** A raw JSON-RPC session with `hyphae mcp` in front of our test server. */
function rawSession(dir: string, config: string) {
  const child = spawn(process.execPath, ['--import', TSX, MAIN, 'mcp', '-c', config, '--', ...SERVERS.test], {
    cwd: dir,
    env: { ...process.env, NO_COLOR: '1' },
  });
  children.push(child);
  const waiting = new Map<string, (message: Record<string, unknown>) => void>();
  createInterface({ input: child.stdout }).on('line', (line) => {
    const message = JSON.parse(line) as Record<string, unknown>;
    waiting.get(JSON.stringify(message.id))?.(message);
  });
  return {
    child,
    request(id: string, method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
      return new Promise((resolve) => {
        waiting.set(JSON.stringify(id), resolve);
        child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
      });
    },
    notify(method: string): void {
      child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
    },
  };
}

describe('protocol revisions through hyphae mcp', () => {
  for (const revision of ['2025-03-26', '2025-06-18', '2025-11-25']) {
    it(`passes a ${revision} client through to the server, and guards its calls`, async () => {
      const dir = tempDir();
      const session = rawSession(dir, writeConfig(dir, ...SQLITE_LEDGER));

      const init = await session.request('init-1', 'initialize', {
        protocolVersion: revision,
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      });
      session.notify('notifications/initialized');
      const echo = await session.request('call-1', 'tools/call', { name: 'echo', arguments: { text: revision } });
      const pay = await session.request('call-2', 'tools/call', { name: 'pay', arguments: { amount: 1, to: 'x' } });

      expect((init.result as { protocolVersion: string }).protocolVersion).toBe(revision);
      expect(echo).toMatchObject({ id: 'call-1', result: { content: [{ type: 'text', text: revision }] } });
      expect(pay).toMatchObject({ id: 'call-2', result: { isError: true } });
      expect(pay.error).toBeUndefined();
    });
  }

  for (const how of ['closes its stdin', 'sends SIGTERM'] as const) {
    it(`exits cleanly when the client ${how}`, async () => {
      const dir = tempDir();
      const session = rawSession(dir, writeConfig(dir, ...SQLITE_LEDGER));
      await session.request('init-1', 'initialize', {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'raw', version: '1' },
      });
      const exited = new Promise<[number | null, string | null]>((resolve) => {
        session.child.once('exit', (code, signal) => resolve([code, signal]));
      });

      if (how === 'closes its stdin') session.child.stdin.end();
      else session.child.kill('SIGTERM');

      expect(await exited).toEqual([0, null]);
    });
  }
});
