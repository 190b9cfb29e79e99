/**
 * A Claude Agent SDK `query()` with hyphae's hooks and a guarded in-process payment tool. The
 * bundled Claude Code binary runs for real; a local stand-in for the Anthropic Messages API plays
 * the model (no network, no key).
 *
 * 1. The model pays invoice 42 through the in-process `send_payment` tool: the body runs through
 *    the ledger.
 * 2. It then asks for a `refund` the run was never granted: `PreToolUse` denies it, and the model
 *    reads why in the call's `tool_result`.
 * 3. It looks up the same order again and again: the loop fuse stops the run on the 3rd identical
 *    call and the hook ends the query (`terminal_reason: 'hook_stopped'`).
 * 4. The whole run is retried under the same run id: the model pays invoice 42 again with the
 *    same `tool_use` id, and the ledger answers with the recorded payment; nobody is charged twice.
 *
 * Run: npx tsx examples/claude-agent-sdk-hooks.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSdkMcpServer, type Options, query, tool } from '@anthropic-ai/claude-agent-sdk';
import { z } from 'zod';
// Published as `hyphae/claude-agent-sdk` and `hyphae`.
import { guardClaudeAgent } from '../src/adapters/claude-agent-sdk.js';
import { createMemoryStorage } from '../src/index.js';
import { createGuards } from './guards.js';

type Block = { type: 'text'; text: string } | { type: 'tool_use'; id: string; name: string; input: unknown };

/** Serve each model request (one with tools) the next scripted answer, as an SSE stream. */
async function startModel(turns: Block[][]): Promise<{ url: string; server: Server }> {
  const script = [...turns];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => {
      body += chunk.toString();
    });
    req.on('end', () => {
      const request = JSON.parse(body || '{}') as { model?: string; tools?: unknown[] };
      const content: Block[] = request.tools?.length
        ? (script.shift() ?? [{ type: 'text', text: 'Done.' }])
        : [{ type: 'text', text: 'Billing' }];
      const stop = content.some((block) => block.type === 'tool_use') ? 'tool_use' : 'end_turn';
      const send = (event: string, data: object) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const message = {
        id: `msg_${script.length}`,
        type: 'message',
        role: 'assistant',
        model: request.model,
        content: [],
      };
      send('message_start', {
        type: 'message_start',
        message: { ...message, usage: { input_tokens: 900, output_tokens: 1 } },
      });
      content.forEach((block, index) => {
        const start = block.type === 'text' ? { type: 'text', text: '' } : { ...block, input: {} };
        const delta =
          block.type === 'text'
            ? { type: 'text_delta', text: block.text }
            : { type: 'input_json_delta', partial_json: JSON.stringify(block.input) };
        send('content_block_start', { type: 'content_block_start', index, content_block: start });
        send('content_block_delta', { type: 'content_block_delta', index, delta });
        send('content_block_stop', { type: 'content_block_stop', index });
      });
      send('message_delta', { type: 'message_delta', delta: { stop_reason: stop }, usage: { output_tokens: 40 } });
      send('message_stop', { type: 'message_stop' });
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const pay: Block = {
  type: 'tool_use',
  id: 'toolu_pay_42',
  name: 'mcp__billing__send_payment',
  input: { invoice: 'inv_42', amount: 120 },
};
const refund: Block = {
  type: 'tool_use',
  id: 'toolu_refund',
  name: 'mcp__billing__refund',
  input: { invoice: 'inv_41', amount: 30 },
};
const lookup = (n: number): Block => ({
  type: 'tool_use',
  id: `toolu_lookup_${n}`,
  name: 'mcp__billing__lookup_order',
  input: { id: 'o_7' },
});

const home = mkdtempSync(join(tmpdir(), 'hyphae-claude-agent-'));
const charges: string[] = [];
const pipeline = createGuards(createMemoryStorage());

async function runOnce(attempt: number, turns: Block[][]): Promise<void> {
  const model = await startModel(turns);
  const agent = guardClaudeAgent({ guards: pipeline, threadId: 'inv-42', runId: 'pay-inv-42' });
  const billing = createSdkMcpServer({
    name: 'billing',
    tools: agent.guardTools('billing', [
      tool('send_payment', 'Pay an invoice', { invoice: z.string(), amount: z.number() }, async (args) => {
        charges.push(args.invoice);
        return { content: [{ type: 'text', text: `paid ${args.invoice}: ch_${charges.length}` }] };
      }),
      tool('refund', 'Refund an invoice', { invoice: z.string(), amount: z.number() }, async (args) => ({
        content: [{ type: 'text', text: `refunded ${args.invoice}` }],
      })),
      tool('lookup_order', 'Look up an order', { id: z.string() }, async (args) => ({
        content: [{ type: 'text', text: `${args.id}: awaiting payment` }],
      })),
    ]),
  });
  const options: Options = {
    cwd: home,
    settingSources: [],
    persistSession: false,
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: home,
      CLAUDE_CONFIG_DIR: join(home, '.claude'),
      ANTHROPIC_BASE_URL: model.url,
      ANTHROPIC_API_KEY: 'sk-ant-example',
      DISABLE_TELEMETRY: '1',
      DISABLE_AUTOUPDATER: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    },
    hooks: { ...agent.hooks },
    canUseTool: agent.canUseTool,
    mcpServers: { billing },
  };
  for await (const message of query({ prompt: 'Pay invoice 42', options })) {
    agent.observe(message);
    if (message.type === 'user' && Array.isArray(message.message.content)) {
      for (const block of message.message.content) {
        if (typeof block === 'object' && block.type === 'tool_result') {
          const text = Array.isArray(block.content)
            ? block.content.map((part) => ('text' in part ? part.text : '')).join('')
            : block.content;
          console.log(`  [${attempt}] ${block.tool_use_id}: ${text}`);
        }
      }
    }
    if (message.type === 'result') {
      console.log(
        `  [${attempt}] query ended: ${message.terminal_reason ?? message.subtype}; stopped by ${agent.run.stopped?.code ?? 'nothing'}`,
      );
    }
  }
  // The query is over: the pipeline forgets its run (a retry under the same ids starts afresh).
  agent.run.end();
  model.server.close();
}

try {
  console.log('Run 1: pay, a refund it was not granted, then the same lookup again and again');
  await runOnce(1, [[pay], [refund], [lookup(1)], [lookup(2)], [lookup(3)], [lookup(4)]]);
  console.log('Run 2: the whole run retried; the model pays again with the same tool_use id');
  await runOnce(2, [[pay], [{ type: 'text', text: 'Invoice 42 is paid.' }]]);
  console.log(`Charges made: ${charges.length} (${charges.join(', ')})`);
} finally {
  rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 });
}
