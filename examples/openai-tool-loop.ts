/**
 * A guarded Chat Completions tool loop with the real `openai` client, against a local stand-in for
 * the API (no network, no key). The model asks for an order lookup and a refund in one turn; the
 * refund is not granted, so the model is told it did NOT happen, and the lookup runs.
 *
 * Run: npx tsx examples/openai-tool-loop.ts
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
// Published as `hyphae/openai` and `hyphae`.
import { createGuardPipeline, runGuardedToolLoop } from '../src/adapters/openai.js';
import { createFuseBox, createLedger, createMemoryStorage, permissionFuse } from '../src/index.js';

const call = (id: string, name: string, args: object) => ({
  id,
  type: 'function',
  function: { name, arguments: JSON.stringify(args) },
});
const reply = (message: object) => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 0,
  model: 'gpt-4o-mini',
  choices: [
    { index: 0, finish_reason: 'stop', logprobs: null, message: { role: 'assistant', refusal: null, ...message } },
  ],
  usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
});
const script = [
  reply({
    content: null,
    tool_calls: [call('call_1', 'lookup_order', { id: 'o_7' }), call('call_2', 'issue_refund', { id: 'o_7' })],
  }),
  reply({ content: 'Order o_7 shipped yesterday. I cannot issue refunds myself; a colleague will follow up.' }),
];
const server = createServer((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(script.shift()));
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;

const guards = createGuardPipeline({
  ledger: createLedger({ storage: createMemoryStorage(), agentId: 'support', policyVersion: '2026.07.1' }),
  fuses: createFuseBox({
    permission: permissionFuse({ granted: ['read'], tools: { lookup_order: ['read'], issue_refund: ['spend_money'] } }),
  }),
  tools: { lookup_order: { sideEffectClass: 'read', schema: { id: { type: 'string', pattern: '^o_\\d+$' } } } },
}).forRun({ threadId: 'ticket-42', runId: 'run-1' });

const result = await runGuardedToolLoop({
  client: new OpenAI({ apiKey: 'not-needed', baseURL }),
  model: 'gpt-4o-mini',
  messages: [{ role: 'user', content: 'Where is order o_7? And refund it please.' }],
  tools: ['lookup_order', 'issue_refund'].map((name) => ({
    type: 'function',
    function: { name, parameters: { type: 'object', properties: { id: { type: 'string' } } } },
  })),
  executors: {
    lookup_order: async (args: { id: string }) => ({ id: args.id, status: 'shipped' }),
    issue_refund: async () => ({ refunded: true }),
  },
  guards,
});

for (const message of result.messages) console.log(`${message.role.padEnd(9)} ${JSON.stringify(message.content)}`);
console.log(`stopped: ${result.stopReason} after ${result.turns} requests`);
server.close();
