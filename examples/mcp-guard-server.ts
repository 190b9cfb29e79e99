/**
 * An MCP server built with the SDK, its tools behind hyphae: a client that re-sends a payment (a
 * new JSON-RPC id after a timeout) gets the first result, and the card is charged once; a tool the
 * policy does not grant is refused as a tool result that says it did NOT happen. Client and server
 * are linked in memory (no network).
 *
 * Run: npx tsx examples/mcp-guard-server.ts
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
// Published as `hyphae/mcp` and `hyphae`.
import { guardServerTools } from '../src/adapters/mcp.js';
import { createLedger, createMemoryStorage } from '../src/index.js';

const charges: number[] = [];
const server = new McpServer({ name: 'payments', version: '1.0.0' });
const tools = guardServerTools(server, {
  ledger: createLedger({ storage: createMemoryStorage(), agentId: 'payments', policyVersion: '1' }),
  policy: { granted: ['read', 'payments'], tools: { pay: { permissions: ['payments'] } } },
});
tools.registerTool('pay', { inputSchema: { amount: z.number() } }, async ({ amount }: { amount: number }) => {
  charges.push(amount);
  return { content: [{ type: 'text' as const, text: `charged ${amount} (charge #${charges.length})` }] };
});
tools.registerTool('delete_account', { inputSchema: { id: z.string() } }, async ({ id }: { id: string }) => ({
  content: [{ type: 'text' as const, text: `deleted ${id}` }],
}));

const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
const client = new Client({ name: 'agent', version: '1.0.0' });
await Promise.all([server.connect(serverSide), client.connect(clientSide)]);

const text = (result: unknown) => (result as { content: { text: string }[] }).content[0]?.text;
console.log(text(await client.callTool({ name: 'pay', arguments: { amount: 25 } })));
console.log(text(await client.callTool({ name: 'pay', arguments: { amount: 25 } })), '(re-sent)');
console.log(text(await client.callTool({ name: 'delete_account', arguments: { id: 'acct_1' } })));
console.log(`card charged ${charges.length} time(s)`);
await client.close();
