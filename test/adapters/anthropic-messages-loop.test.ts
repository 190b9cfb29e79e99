/**
 * A hand-written `messages.create` loop with the pieces `hyphae/anthropic` gives it: the guarded
 * client (history repair, the run's stop, the budget) and `answerToolUses` (each `tool_use` through
 * the guards, every one answered).
 */
import Anthropic from '@anthropic-ai/sdk';
import type { MessageParam } from '@anthropic-ai/sdk/resources/messages';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type AnthropicRunnableToolLike,
  answerToolUses,
  anthropicGuardMiddleware,
  createGuardPipeline,
  type GuardRun,
  guardAnthropicClient,
  stoppedVerdictOf,
} from '../../src/adapters/anthropic.js';
import { createFuseBox, createLedger, createMemoryStorage, loopFuse, permissionFuse } from '../../src/index.js';
import { type FakeMessagesApi, historyError, type Step, startFakeMessagesApi } from './anthropic/fake-messages-api.js';

let api: FakeMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const definitions = [
  { name: 'send_payment', description: 'Charge an invoice', input_schema: { type: 'object' as const } },
  { name: 'lookup_order', description: 'Look an order up', input_schema: { type: 'object' as const } },
];

function bodies() {
  const charges: number[] = [];
  const lookups: number[] = [];
  const tools: AnthropicRunnableToolLike[] = [
    {
      name: 'send_payment',
      run: async (args: { amount: number }) => {
        charges.push(args.amount);
        return `charged ${args.amount}`;
      },
    },
    {
      name: 'lookup_order',
      run: async (args: { id: number }) => {
        lookups.push(args.id);
        return `order ${args.id}: shipped`;
      },
    },
  ];
  return { charges, lookups, tools };
}

/** The loop the docs show: request, append the reply, answer its tool uses, until a turn without any. */
async function loop(script: Step[], guards: GuardRun, tools: readonly AnthropicRunnableToolLike[], stream = false) {
  api = await startFakeMessagesApi(script);
  const client = guardAnthropicClient(new Anthropic({ apiKey: 'test', baseURL: api.baseURL }), guards);
  const messages: MessageParam[] = [{ role: 'user', content: 'Pay invoice 42' }];
  for (;;) {
    const request = { model: 'claude-test', max_tokens: 256, messages, tools: definitions };
    const reply = stream ? await client.messages.stream(request).finalMessage() : await client.messages.create(request);
    messages.push({ role: reply.role, content: reply.content });
    const results = await answerToolUses(reply, tools, guards);
    if (results === null) return { reply, messages };
    messages.push(results);
  }
}

const pipelineOf = (fuses?: Parameters<typeof createFuseBox>[0]) =>
  createGuardPipeline({
    ledger: createLedger({ storage: createMemoryStorage(), agentId: 'billing', policyVersion: '1' }),
    ...(fuses === undefined ? {} : { fuses: createFuseBox(fuses) }),
    tools: {
      send_payment: { sideEffectClass: 'payment', ledger: { identity: 'intent' } },
      lookup_order: { sideEffectClass: 'read' },
    },
  }).forRun({ threadId: 'thread-1', runId: 'run-1' });

const pay = { name: 'send_payment', input: { invoice: 42, amount: 100 } };
const lookup = { name: 'lookup_order', input: { id: 7 } };

describe.each([
  ['create', false],
  ['stream', true],
])('a hand-written messages loop (%s)', (_, stream) => {
  it('charges a payment the model asks for again, under a new tool_use id, once', async () => {
    const { charges, tools } = bodies();
    const { reply, messages } = await loop(
      [{ toolUses: [pay] }, { toolUses: [pay] }, { text: 'paid' }],
      pipelineOf(),
      tools,
      stream,
    );
    expect(charges).toEqual([100]);
    expect(reply.content).toEqual([{ type: 'text', text: 'paid' }]);
    expect(historyError(messages)).toBeNull();
  });

  it('ends when the loop fuse stops the run: the request after it is not sent', async () => {
    const { lookups, tools } = bodies();
    const guards = pipelineOf({ loop: loopFuse({ repeatThreshold: 3 }) });
    const script = [...Array.from({ length: 6 }, () => ({ toolUses: [lookup] })), { text: 'done' }];
    const { reply } = await loop(script, guards, tools, stream);
    expect(lookups).toEqual([7, 7]);
    expect(api?.requests).toHaveLength(3);
    expect(stoppedVerdictOf(reply)).toMatchObject({ terminal: true });
  });

  it('answers a refused call with is_error that says it was NOT executed', async () => {
    const { charges, tools } = bodies();
    const guards = pipelineOf({
      permission: permissionFuse({ granted: ['read'], tools: { send_payment: ['pay'], lookup_order: ['read'] } }),
    });
    const { messages } = await loop([{ toolUses: [pay] }, { text: 'not paid' }], guards, tools, stream);
    expect(charges).toEqual([]);
    const [result] = (messages[2]?.content ?? []) as { type: string; content: string; is_error?: boolean }[];
    expect(result?.is_error).toBe(true);
    expect(result?.content).toMatch(/NOT/);
  });

  it('answers a tool_use with no tool as NOT executed, so the next request is valid', async () => {
    const { tools } = bodies();
    const { messages } = await loop(
      [{ toolUses: [{ name: 'delete_repo', input: {} }] }, { text: 'ok' }],
      pipelineOf(),
      tools,
      stream,
    );
    const [result] = (messages[2]?.content ?? []) as { type: string; content: string; is_error?: boolean }[];
    expect(result).toMatchObject({ type: 'tool_result', is_error: true });
    expect(api?.replies.map((r) => r.status)).toEqual([200, 200]);
  });
});

describe('anthropicGuardMiddleware in the client options', () => {
  it('guards the client it is given to: a stopped run sends no request', async () => {
    api = await startFakeMessagesApi([{ text: 'hello' }]);
    const guards = pipelineOf();
    const client = new Anthropic({
      apiKey: 'test',
      baseURL: api.baseURL,
      middleware: [anthropicGuardMiddleware(guards)],
    });
    const request = { model: 'claude-test', max_tokens: 64, messages: [{ role: 'user' as const, content: 'hi' }] };
    expect((await client.messages.create(request)).content).toEqual([{ type: 'text', text: 'hello' }]);
    guards.stop({
      stage: 'run',
      code: 'operator_stop',
      message: 'Stopped by the operator',
      reason: 'test',
      terminal: true,
    });
    const reply = await client.messages.create(request);
    expect(stoppedVerdictOf(reply)?.code).toBe('operator_stop');
    expect(api.requests).toHaveLength(1);
  });
});
