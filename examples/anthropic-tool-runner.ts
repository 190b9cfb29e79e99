/**
 * `client.beta.messages.toolRunner` with guarded tools and a guarded client, against a scripted
 * Messages API (a `fetch` that answers from a script: no network, no key). It holds message threads
 * and answers 400 for an invalid history, as the API does.
 *
 * 1. The model asks for the same payment twice in one turn, under two `tool_use` ids (the runner
 *    runs them concurrently): the card is charged once, and both calls get the charge's result.
 * 2. The model repeats one lookup: the 3rd identical call is refused, and the runner ends with the
 *    guards' stop message — no `max_iterations`, and no request after the stop.
 * 3. A history with an orphan `tool_result` and an unanswered `tool_use` is repaired before the
 *    first request (stock, it is a 400).
 *
 * Run: npx tsx examples/anthropic-tool-runner.ts
 */
import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { z } from 'zod';
// Published as `hyphae/anthropic` and `hyphae`.
import { guardAnthropicClient, guardRunnableTools, stoppedVerdictOf } from '../src/adapters/anthropic.js';
import { createMemoryStorage } from '../src/index.js';
import { createGuards } from './guards.js';

type Block = { type: string; id?: string; tool_use_id?: string; name?: string; input?: unknown; text?: string };
type Message = { role: string; content: string | Block[] };

/** What the API says of a history: each `tool_use` answered by the next message, each result by the one before. */
function invalid(messages: readonly Message[]): string | null {
  const blocks = (m: Message | undefined) => (Array.isArray(m?.content) ? m.content : []);
  for (const [i, message] of messages.entries()) {
    const asked = new Set(blocks(messages[i - 1]).flatMap((b) => (b.type === 'tool_use' ? [b.id] : [])));
    const answered = new Set(blocks(messages[i + 1]).flatMap((b) => (b.type === 'tool_result' ? [b.tool_use_id] : [])));
    for (const block of blocks(message)) {
      if (block.type === 'tool_result' && !asked.has(block.tool_use_id))
        return `orphan tool_result ${block.tool_use_id}`;
      if (block.type === 'tool_use' && !answered.has(block.id)) return `tool_use ${block.id} without its tool_result`;
    }
  }
  return null;
}

/** A scripted Messages API: each request gets the next reply; `requests` counts them. */
function scriptedApi(script: Block[][]) {
  const threads = new Map<string, Message[]>();
  const api = { requests: 0, fetch: undefined as unknown as typeof fetch };
  api.fetch = async (_url, init) => {
    api.requests++;
    const body = JSON.parse(String(init?.body)) as {
      messages: Message[];
      thread?: { type: string; previous_message_id?: string };
    };
    const held = body.thread?.type === 'continue' ? (threads.get(body.thread.previous_message_id ?? '') ?? []) : [];
    const history = [...held, ...body.messages];
    const error = invalid(history);
    if (error !== null) {
      const failure = { type: 'error', error: { type: 'invalid_request_error', message: error } };
      return new Response(JSON.stringify(failure), { status: 400, headers: { 'content-type': 'application/json' } });
    }
    const content = script[Math.min(api.requests - 1, script.length - 1)] ?? [];
    const id = `msg_${api.requests}`;
    threads.set(id, [...history, { role: 'assistant', content }]);
    const usage = { input_tokens: 50, output_tokens: 10, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
    const stop = content.some((b) => b.type === 'tool_use') ? 'tool_use' : 'end_turn';
    const reply = {
      id,
      type: 'message',
      role: 'assistant',
      model: 'claude-scripted',
      content,
      stop_reason: stop,
      usage,
    };
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  return api;
}

const pay = (id: string): Block => ({
  type: 'tool_use',
  id,
  name: 'send_payment',
  input: { invoice: 42, amount: 100 },
});
const lookup = (id: string): Block => ({ type: 'tool_use', id, name: 'lookup_order', input: { id: 7 } });
const text = (value: string): Block[] => [{ type: 'text', text: value }];

const charges: number[] = [];
const sendPayment = betaZodTool({
  name: 'send_payment',
  description: 'Charge an invoice',
  inputSchema: z.object({ invoice: z.number(), amount: z.number() }),
  run: async ({ amount }) => {
    charges.push(amount);
    return `charged ${amount}`;
  },
});
const lookupOrder = betaZodTool({
  name: 'lookup_order',
  description: 'Look an order up',
  inputSchema: z.object({ id: z.number() }),
  run: async ({ id }) => `order ${id}: shipped`,
});

const pipeline = createGuards(createMemoryStorage());

async function runGuarded(runId: string, script: Block[][], messages: BetaMessageParam[]) {
  const api = scriptedApi(script);
  const guards = pipeline.forRun({ threadId: 'inv-42', runId });
  const client = guardAnthropicClient(new Anthropic({ apiKey: 'scripted', fetch: api.fetch }), guards);
  const final = await client.beta.messages.toolRunner({
    model: 'claude-scripted',
    max_tokens: 512,
    messages,
    tools: guardRunnableTools([sendPayment, lookupOrder], guards),
  });
  return { final, guards, requests: api.requests };
}

const ask = (content: string): BetaMessageParam[] => [{ role: 'user', content }];

// 1. The same payment twice in one turn.
const paid = await runGuarded('pay', [[pay('toolu_1'), pay('toolu_2')], text('paid')], ask('Pay invoice 42'));
console.log(`1. charges: ${charges.length} (asked twice); answer: ${JSON.stringify(paid.final.content)}`);

// 2. A lookup the model repeats.
const looped = await runGuarded(
  'loop',
  [[lookup('toolu_a')], [lookup('toolu_b')], [lookup('toolu_c')], [lookup('toolu_d')]],
  ask('Where is order 7?'),
);
console.log(
  `2. requests: ${looped.requests}; stopped by ${looped.guards.stopped?.code}; verdict on the final message: ${stoppedVerdictOf(looped.final)?.code}`,
);

// 3. A broken history: stock, the first request is a 400.
const broken: BetaMessageParam[] = [
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_gone', content: 'stale' }] },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_open', name: 'lookup_order', input: { id: 7 } }] },
  { role: 'user', content: 'Where is order 7?' },
];
const stock = scriptedApi([text('shipped')]);
const stockError = await new Anthropic({ apiKey: 'scripted', fetch: stock.fetch, maxRetries: 0 }).beta.messages
  .toolRunner({ model: 'claude-scripted', max_tokens: 512, messages: broken, tools: [lookupOrder] })
  .then(
    () => 'none',
    (error: unknown) => (error instanceof Error ? error.message : String(error)),
  );
const repaired = await runGuarded('history', [text('shipped')], broken);
console.log(`3. stock: ${stockError}; guarded: ${JSON.stringify(repaired.final.content)}`);
