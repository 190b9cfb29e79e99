/**
 * The guarded client under `client.beta.messages.toolRunner` at its defaults (no `max_iterations`,
 * message threads on; `thread: false` and streaming too): a stopped run sends no more requests, the
 * budget pre-flight refuses the request past the ceiling counting all four usage fields, and a
 * history the API would answer with 400 is repaired before it is sent.
 */
import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import type { BetaMessageParam } from '@anthropic-ai/sdk/resources/beta/messages/messages';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createGuardPipeline,
  type GuardRun,
  guardAnthropicClient,
  guardRunnableTools,
  stoppedVerdictOf,
} from '../../src/adapters/anthropic.js';
import { budgetFuse, createFuseBox, createLedger, createMemoryStorage, loopFuse } from '../../src/index.js';
import { type FakeMessagesApi, historyError, type Step, startFakeMessagesApi } from './anthropic/fake-messages-api.js';

let api: FakeMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

function lookupTool() {
  const lookups: number[] = [];
  const tool = betaZodTool({
    name: 'lookup_order',
    description: 'Look an order up',
    inputSchema: z.object({ id: z.number() }),
    run: async ({ id }) => {
      lookups.push(id);
      return `order ${id}: shipped`;
    },
  });
  return { lookups, tool };
}

const modes = [
  ['message threads (the default)', { thread: true, stream: false }],
  ['thread: false', { thread: false, stream: false }],
  ['streaming', { thread: true, stream: true }],
] as const;

type Mode = (typeof modes)[number][1];

async function runner(
  script: Step[],
  mode: Mode,
  setup: {
    readonly guards?: GuardRun;
    readonly messages?: BetaMessageParam[];
    readonly tools?: Parameters<Anthropic['beta']['messages']['toolRunner']>[0]['tools'];
  },
) {
  api = await startFakeMessagesApi(script);
  const stock = new Anthropic({ apiKey: 'test', baseURL: api.baseURL });
  const client = setup.guards === undefined ? stock : guardAnthropicClient(stock, setup.guards);
  const tools = setup.tools ?? [];
  const params = {
    model: 'claude-test',
    max_tokens: 256,
    messages: setup.messages ?? [{ role: 'user' as const, content: 'Where is order 7?' }],
    tools: setup.guards === undefined ? tools : guardRunnableTools(tools, setup.guards),
    ...(mode.thread ? {} : { thread: false as const }),
  };
  return mode.stream
    ? client.beta.messages.toolRunner({ ...params, stream: true }).runUntilDone()
    : client.beta.messages.toolRunner(params).runUntilDone();
}

const lookup = { name: 'lookup_order', input: { id: 7 } };
const repeatedLookups: Step[] = [...Array.from({ length: 8 }, () => ({ toolUses: [lookup] })), { text: 'done' }];

describe.each(modes)('the loop fuse under the tool runner, %s', (_, mode) => {
  it('stock: no iteration cap, every identical call runs', async () => {
    const { lookups, tool } = lookupTool();
    const final = await runner(repeatedLookups, mode, { tools: [tool] });
    expect(lookups).toHaveLength(8);
    expect(api?.requests).toHaveLength(9);
    expect(final.content).toEqual([{ type: 'text', text: 'done' }]);
  });

  it('guarded: the 3rd identical call is refused and the runner ends, no request after it', async () => {
    const { lookups, tool } = lookupTool();
    const guards = createGuardPipeline({
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }),
      tools: { lookup_order: { sideEffectClass: 'read' } },
    }).forRun({ threadId: 'thread-1', runId: 'run-1' });
    const final = await runner(repeatedLookups, mode, { guards, tools: [tool] });
    expect(lookups).toHaveLength(2);
    expect(api?.requests).toHaveLength(3);
    expect(stoppedVerdictOf(final)).toMatchObject({ code: 'loop_repeat', terminal: true });
    expect(final.content).toEqual([{ type: 'text', text: guards.stopped?.message }]);
    expect(final.stop_reason).toBe('end_turn');
    expect(guards.stopped?.code).toBe('loop_repeat');
  });
});

/** 100 input, 20 output, 300 cache creation and 500 cache read tokens: 920 a request. */
const cachedUsage = {
  input_tokens: 100,
  output_tokens: 20,
  cache_creation_input_tokens: 300,
  cache_read_input_tokens: 500,
};

describe.each(modes)('the budget pre-flight under the tool runner, %s', (_, mode) => {
  const script: Step[] = [
    { toolUses: [lookup], usage: cachedUsage },
    { toolUses: [{ name: 'lookup_order', input: { id: 8 } }], usage: cachedUsage },
    { toolUses: [{ name: 'lookup_order', input: { id: 9 } }], usage: cachedUsage },
    { text: 'done', usage: cachedUsage },
  ];

  it('stock: every request is sent', async () => {
    const { tool } = lookupTool();
    await runner(script, mode, { tools: [tool] });
    expect(api?.requests).toHaveLength(4);
  });

  it('guarded: the request past 2,000 tokens is not sent (cache reads and writes counted)', async () => {
    const { tool } = lookupTool();
    const guards = createGuardPipeline({
      fuses: createFuseBox({ budget: budgetFuse({ maxTokens: 2_000 }) }),
      tools: { lookup_order: { sideEffectClass: 'read' } },
    }).forRun({ threadId: 'thread-1', runId: 'run-1' });
    const final = await runner(script, mode, { guards, tools: [tool] });
    // Two requests booked 1,840 tokens; input and output alone would be 240, and the third would go.
    expect(api?.requests).toHaveLength(2);
    expect(stoppedVerdictOf(final)).toMatchObject({ terminal: true });
    expect(guards.stopped?.stage).toBe('model');
  });
});

/** A history the API answers with 400: an orphan `tool_result`, and a `tool_use` without its result. */
const brokenHistory: BetaMessageParam[] = [
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_gone', content: 'stale' }] },
  { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_open', name: 'lookup_order', input: { id: 7 } }] },
  { role: 'user', content: 'Where is order 7?' },
];

describe.each(modes)('a history the API refuses, under the tool runner, %s', (_, mode) => {
  it('stock: the first request is a 400', async () => {
    await expect(runner([{ text: 'done' }], mode, { messages: brokenHistory })).rejects.toThrow(
      /tool_use_id|tool_result/,
    );
    expect(api?.replies.map((reply) => reply.status)).toEqual([400]);
  });

  it('guarded: repaired before the request, so the API takes it', async () => {
    const guards = createGuardPipeline({}).forRun({ threadId: 'thread-1', runId: 'run-1' });
    const final = await runner([{ text: 'done' }], mode, { guards, messages: brokenHistory });
    expect(final.content).toEqual([{ type: 'text', text: 'done' }]);
    const sent = api?.requests[0]?.messages as BetaMessageParam[];
    expect(historyError(sent)).toBeNull();
    expect(JSON.stringify(sent)).not.toContain('toolu_gone');
  });

  it('guarded: a tool_use id the model sends again is repaired on the next turn, its body run once', async () => {
    const { lookups, tool } = lookupTool();
    const again = { id: 'toolu_same', ...lookup };
    const guards = createGuardPipeline({
      ledger: createLedger({ storage: createMemoryStorage(), agentId: 'support', policyVersion: '1' }),
      tools: { lookup_order: { sideEffectClass: 'payment' } },
    }).forRun({ threadId: 'thread-1', runId: 'run-1' });
    const final = await runner([{ toolUses: [again] }, { toolUses: [again] }, { text: 'done' }], mode, {
      guards,
      tools: [tool],
    });
    expect(final.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(lookups).toEqual([7]);
    expect(api?.replies.map((reply) => reply.status)).toEqual([200, 200, 200]);
    // On a thread the repair changes what the server holds, so the last turn starts a new thread.
    const threads = api?.requests.map((request) => (request.thread as { type?: string } | undefined)?.type);
    expect(threads).toEqual(mode.thread ? ['create', 'continue', 'create'] : [undefined, undefined, undefined]);
  });
});

describe('a tool_use id the model sends again, stock', () => {
  it('runs its body again and the next request is a 400', async () => {
    const { lookups, tool } = lookupTool();
    const again = { id: 'toolu_same', ...lookup };
    await expect(
      runner([{ toolUses: [again] }, { toolUses: [again] }, { text: 'done' }], modes[0][1], { tools: [tool] }),
    ).rejects.toThrow(/unique/);
    expect(lookups).toEqual([7, 7]);
  });
});

describe('a request the client retries (twice by default)', () => {
  it('pre-flights each attempt and gives the failed attempt its reservation back', async () => {
    // One attempt's estimate (~270 tokens: the prompt and `max_tokens`) fits under 400; two would not.
    const guards = createGuardPipeline({ fuses: createFuseBox({ budget: budgetFuse({ maxTokens: 400 }) }) }).forRun({
      threadId: 'thread-1',
      runId: 'run-1',
    });
    const final = await runner([{ status: 500, message: 'overloaded' }, { text: 'done' }], modes[0][1], { guards });
    expect(api?.replies.map((reply) => reply.status)).toEqual([500, 200]);
    expect(final.content).toEqual([{ type: 'text', text: 'done' }]);
    expect(guards.stopped).toBeNull();
  });
});
