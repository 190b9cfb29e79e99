/**
 * `hyphae/mcp` for SDK-built servers and clients: a real `McpServer` and `Client` linked in memory
 * (the SDK's own in-memory transport), with the guards on the server's handlers or the client.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  guardClient,
  guardServerTools,
  type McpPolicy,
  type ServerToolConfig,
  type ServerToolHandler,
} from '../../src/adapters/mcp.js';
import { createLedger } from '../../src/ledger/create-ledger.js';
import { createMemoryStorage } from '../../src/storage/memory.js';

const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

function ledger() {
  return createLedger({ storage: createMemoryStorage(), agentId: 'sdk', policyVersion: '1' });
}

/** A server with a payment tool, a read tool and a tool that leaks a token; `guarded` puts the guards on it. */
function paymentServer(policy: McpPolicy | undefined) {
  const server = new McpServer({ name: 'payments', version: '1.0.0' });
  const effects: string[] = [];
  const guarded = policy === undefined ? undefined : guardServerTools(server, { ledger: ledger(), policy });
  type Register = (name: string, config: ServerToolConfig, handler: ServerToolHandler) => unknown;
  const plain = server.registerTool.bind(server) as unknown as Register;
  const register = { registerTool: guarded === undefined ? plain : (guarded.registerTool as Register) };
  register.registerTool('pay', { inputSchema: { amount: z.number() } }, async ({ amount }: { amount: number }) => {
    effects.push(`paid ${amount}`);
    return { content: [{ type: 'text' as const, text: `paid ${amount} #${effects.length}` }] };
  });
  register.registerTool(
    'lookup',
    { inputSchema: { id: z.string() }, annotations: { readOnlyHint: true } },
    async ({ id }: { id: string }) => ({ content: [{ type: 'text' as const, text: `order ${id}` }] }),
  );
  register.registerTool('leak', { annotations: { readOnlyHint: true } }, async () => ({
    content: [{ type: 'text' as const, text: `token ${TOKEN}` }],
  }));
  return { server, effects };
}

async function connected(server: McpServer): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), client.connect(clientSide)]);
  return client;
}

function textOf(result: unknown): string {
  return ((result as { content: { text?: string }[] }).content ?? []).map((block) => block.text ?? '').join('');
}

describe('guardServerTools', () => {
  it('runs a re-sent payment once, a new one again, and refuses an ungranted tool inside the server', async () => {
    const { server, effects } = paymentServer({ granted: ['read', 'write', 'destructive'] });
    const client = await connected(server);
    const payment = { name: 'pay', arguments: { amount: 3 }, _meta: { 'io.hyphae/idempotency-key': 'order-3' } };

    const first = await client.callTool(payment);
    const retried = await client.callTool(payment);
    // Answered, and without the client's key: the same payment again is a new call.
    const again = await client.callTool({ name: 'pay', arguments: { amount: 3 } });
    const leak = await client.callTool({ name: 'leak', arguments: {} });

    expect(effects).toEqual(['paid 3', 'paid 3']);
    expect(textOf(first)).toBe('paid 3 #1');
    expect(textOf(retried)).toBe('paid 3 #1');
    expect(textOf(again)).toBe('paid 3 #2');
    expect(leak.isError).toBe(true);
    expect(textOf(leak)).not.toContain(TOKEN);
  });

  it('refuses a write the policy does not grant, as a tool result that says it did NOT happen', async () => {
    const { server, effects } = paymentServer({ granted: ['read'] });
    const client = await connected(server);

    const pay = await client.callTool({ name: 'pay', arguments: { amount: 3 } });
    const lookup = await client.callTool({ name: 'lookup', arguments: { id: 'o_1' } });

    expect(pay.isError).toBe(true);
    expect(textOf(pay)).toContain('NOT executed');
    expect(effects).toEqual([]);
    expect(textOf(lookup)).toBe('order o_1');
  });
});

describe('guardClient', () => {
  it('filters the listing and guards the calls an agent makes through the SDK client', async () => {
    const { server, effects } = paymentServer(undefined);
    const tools = guardClient(await connected(server), {
      ledger: ledger(),
      policy: { allow: ['pay', 'lookup'], granted: ['read', 'write', 'destructive'] },
    });

    const listed = await tools.listTools();
    const payment = { name: 'pay', arguments: { amount: 9 }, _meta: { idempotencyKey: 'order-9' } };
    const first = await tools.callTool(payment);
    const retried = await tools.callTool(payment);
    const hidden = await tools.callTool({ name: 'leak', arguments: {} });

    expect(listed.tools.map((tool) => tool.name).sort()).toEqual(['lookup', 'pay']);
    expect(textOf(first)).toBe('paid 9 #1');
    expect(textOf(retried)).toBe('paid 9 #1');
    expect(effects).toEqual(['paid 9']);
    expect(hidden.isError).toBe(true);
    expect(textOf(hidden)).toContain('NOT executed');
  });
});
