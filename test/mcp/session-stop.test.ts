/**
 * How a stopped MCP session ends: the SDK's own client, through the proxy (in process, so its guard
 * can take a manual clock), to a real SDK server, each leg on the SDK's in-memory transport.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createMcpGuard, createMcpProxy, type McpPolicy, type McpTransport } from '../../src/adapters/mcp.js';
import { createManualClock } from '../../src/core/clock.js';

const HOUR = 3_600_000;
const START = Date.UTC(2030, 0, 1);
const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.allSettled(closing.splice(0).map((close) => close()));
});

/** A client connected through a proxy whose guard reads `clock`, to a server with two read tools. */
async function proxied(policy: McpPolicy) {
  const clock = createManualClock(START);
  const server = new McpServer({ name: 'notes', version: '1.0.0' });
  const read = { annotations: { readOnlyHint: true } };
  server.registerTool('read_note', { inputSchema: { id: z.string() }, ...read }, async ({ id }) => ({
    content: [{ type: 'text' as const, text: `note ${id}` }],
  }));
  server.registerTool('list_notes', { inputSchema: {}, ...read }, async () => ({
    content: [{ type: 'text' as const, text: 'a, b' }],
  }));
  const [serverSide, proxyUp] = InMemoryTransport.createLinkedPair();
  const [proxyDown, clientSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const proxy = createMcpProxy({
    client: proxyDown as unknown as McpTransport,
    upstream: proxyUp as unknown as McpTransport,
    guard: createMcpGuard({ clock, policy }),
  });
  await proxy.start();
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(clientSide);
  closing.push(
    () => client.close(),
    () => proxy.close(),
  );
  const call = (name: string, args: Record<string, unknown> = {}) => client.callTool({ name, arguments: args });
  return { clock, call };
}

function textOf(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content ?? []).map((block) => block.text ?? '').join('');
}

function refusalCode(result: unknown): unknown {
  return (result as { _meta?: Record<string, { code?: unknown }> })._meta?.['io.hyphae/refusal']?.code;
}

describe('a stopped MCP session', () => {
  it('refuses a loop and its repeats without stopping the session', async () => {
    const { call } = await proxied({});

    const reads = [];
    for (let i = 0; i < 4; i++) reads.push(await call('read_note', { id: 'n1' }));
    const other = await call('read_note', { id: 'n2' });
    const listed = await call('list_notes');

    expect(reads.map(refusalCode)).toEqual([undefined, undefined, 'loop_repeat', 'loop_repeat']);
    expect(textOf(other)).toBe('note n2');
    expect(textOf(listed)).toBe('a, b');
  });

  it('runs calls again once the cooldown after a spent budget has passed, with a fresh budget', async () => {
    const { clock, call } = await proxied({ budget: { maxCalls: 2 }, cooldownMs: HOUR });
    const until = new Date(START + 1_000 + HOUR).toISOString();

    await call('read_note', { id: 'n1' });
    await call('read_note', { id: 'n2' });
    clock.advance(1_000);
    const over = await call('list_notes');
    clock.advance(HOUR - 1);
    const stillStopped = await call('read_note', { id: 'n3' });
    clock.advance(1);
    const renewed = [await call('read_note', { id: 'n3' }), await call('list_notes')];
    const overAgain = await call('read_note', { id: 'n4' });

    expect(refusalCode(over)).toBe('budget_calls_exceeded');
    expect(textOf(over)).toContain(`Calls run again after ${until}`);
    expect(refusalCode(stillStopped)).toBe('run_stopped');
    expect(textOf(stillStopped)).toContain('(`budget_calls_exceeded`)');
    expect(textOf(stillStopped)).toContain(`Calls run again after ${until}`);
    expect(renewed.map(textOf)).toEqual(['note n3', 'a, b']);
    expect(refusalCode(overAgain)).toBe('budget_calls_exceeded');
  });

  it('stays stopped without a cooldown, however long it waits', async () => {
    const { clock, call } = await proxied({ budget: { maxCalls: 1 } });

    await call('read_note', { id: 'n1' });
    const over = await call('read_note', { id: 'n2' });
    clock.advance(30 * 24 * HOUR);
    const later = await call('list_notes');

    expect(refusalCode(over)).toBe('budget_calls_exceeded');
    expect(textOf(over)).toContain('It lasts until the client starts a new session');
    expect(refusalCode(later)).toBe('run_stopped');
  });
});
