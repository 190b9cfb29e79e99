/**
 * Guarded runnable tools under `client.beta.messages.toolRunner` at its defaults (message threads
 * on; `thread: false` sends the full history every turn): a redispatched payment charges once
 * whatever the `tool_use` id, parallel calls in one turn included, and a refused call is answered
 * as a `tool_result` with `is_error` that says it was NOT executed.
 */
import Anthropic from '@anthropic-ai/sdk';
import { betaZodTool } from '@anthropic-ai/sdk/helpers/beta/zod';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuardPipeline, type GuardRun, guardRunnableTools } from '../../src/adapters/anthropic.js';
import { createFuseBox, createLedger, createMemoryStorage, permissionFuse } from '../../src/index.js';
import { everyStore } from '../helpers/every-store.js';
import { type FakeMessagesApi, type Step, startFakeMessagesApi } from './anthropic/fake-messages-api.js';

const stores = await everyStore();

let api: FakeMessagesApi | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

/** A payment provider: every body run is one charge. */
function provider() {
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
  return { charges, sendPayment };
}

function guardsFor(storage = createMemoryStorage()): GuardRun {
  return createGuardPipeline({
    ledger: createLedger({ storage, agentId: 'billing', policyVersion: '1' }),
    // One payment per intent: the same arguments in the same run never pay twice, whatever the call id.
    tools: { send_payment: { sideEffectClass: 'payment', ledger: { identity: 'intent' } } },
  }).forRun({ threadId: 'thread-1', runId: 'run-1' });
}

const pay = (id: string) => ({ id, name: 'send_payment', input: { invoice: 42, amount: 100 } });

async function runTools(
  script: Step[],
  tools: Parameters<Anthropic['beta']['messages']['toolRunner']>[0]['tools'],
  thread: boolean,
) {
  api = await startFakeMessagesApi(script);
  const client = new Anthropic({ apiKey: 'test', baseURL: api.baseURL });
  return client.beta.messages.toolRunner({
    model: 'claude-test',
    max_tokens: 256,
    messages: [{ role: 'user', content: 'Pay invoice 42' }],
    tools,
    ...(thread ? {} : { thread: false as const }),
  });
}

/** The `tool_result` blocks of every request, as [id, content, is_error]. */
function resultsSent(server: FakeMessagesApi): [string, unknown, boolean][] {
  return server.requests.flatMap((request) =>
    (request.messages as { content: unknown }[]).flatMap((message) =>
      Array.isArray(message.content)
        ? (message.content as { type: string; tool_use_id: string; content: unknown; is_error?: boolean }[])
            .filter((block) => block.type === 'tool_result')
            .map((block): [string, unknown, boolean] => [block.tool_use_id, block.content, block.is_error === true])
        : [],
    ),
  );
}

describe.each([
  ['message threads (the default)', true],
  ['thread: false', false],
])('a redispatched payment under the tool runner, %s', (_, thread) => {
  const redispatches: [string, Step[]][] = [
    [
      'two tool_use ids in one turn (run concurrently)',
      [{ toolUses: [pay('toolu_1'), pay('toolu_2')] }, { text: 'paid' }],
    ],
    [
      'a new tool_use id on a later turn',
      [{ toolUses: [pay('toolu_1')] }, { toolUses: [pay('toolu_9')] }, { text: 'paid' }],
    ],
  ];

  it.each(redispatches)('stock: %s charges twice', async (_, script) => {
    const { charges, sendPayment } = provider();
    await runTools(script, [sendPayment], thread);
    expect(charges).toEqual([100, 100]);
  });

  it.each(redispatches)('guarded: %s charges once, every call answered', async (_, script) => {
    const { charges, sendPayment } = provider();
    const final = await runTools(script, guardRunnableTools([sendPayment], guardsFor()), thread);
    expect(charges).toEqual([100]);
    expect(final.content).toEqual([{ type: 'text', text: 'paid' }]);
    const answers = resultsSent(api as FakeMessagesApi);
    expect(answers.length).toBeGreaterThanOrEqual(2);
    for (const [, content, isError] of answers) expect([content, isError]).toEqual(['charged 100', false]);
  });
});

describe.each(stores)('parallel payments in one turn, then again, on the %s ledger', (_name, backend) => {
  afterAll(() => backend.dispose());

  it('charges once', async () => {
    const { storage, cleanup } = await backend.open();
    try {
      const { charges, sendPayment } = provider();
      const script: Step[] = [
        { toolUses: [pay('toolu_1'), pay('toolu_2'), pay('toolu_3')] },
        { toolUses: [pay('toolu_4')] },
        { text: 'paid' },
      ];
      const final = await runTools(script, guardRunnableTools([sendPayment], guardsFor(storage)), true);
      expect(charges).toEqual([100]);
      expect(final.content).toEqual([{ type: 'text', text: 'paid' }]);
    } finally {
      await cleanup();
    }
  });
});

describe('a whole run retried after an abort mid-charge', () => {
  async function abortThenRetry(guarded: boolean) {
    const charges: number[] = [];
    let release: () => void = () => {};
    const settled = new Promise<void>((resolve) => {
      release = resolve;
    });
    const sendPayment = betaZodTool({
      name: 'send_payment',
      description: 'Charge an invoice',
      inputSchema: z.object({ invoice: z.number(), amount: z.number() }),
      run: async ({ amount }) => {
        charges.push(amount);
        if (charges.length === 1) await settled;
        return `charged ${amount}`;
      },
    });
    const storage = createMemoryStorage();
    api = await startFakeMessagesApi([{ toolUses: [pay('toolu_1')] }]);
    const client = new Anthropic({ apiKey: 'test', baseURL: api.baseURL });
    const controller = new AbortController();
    const tools = () => (guarded ? guardRunnableTools([sendPayment], guardsFor(storage)) : [sendPayment]);
    const params = {
      model: 'claude-test',
      max_tokens: 256,
      messages: [{ role: 'user' as const, content: 'Pay invoice 42' }],
    };
    const first = client.beta.messages.toolRunner({ ...params, tools: tools() }, { signal: controller.signal });
    const ended = first.runUntilDone().then(
      () => 'completed',
      (error: unknown) => error,
    );
    // The charge is in flight once the tool runs: the run is aborted then, and the charge ends after.
    while (charges.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    release();
    expect(await ended).not.toBe('completed');
    api.push({ toolUses: [pay('toolu_7')] }, { text: 'paid' });
    const retried = await client.beta.messages.toolRunner({ ...params, tools: tools() });
    return { charges, retried };
  }

  it('stock: the retried run charges again', async () => {
    const { charges } = await abortThenRetry(false);
    expect(charges).toEqual([100, 100]);
  });

  it('guarded: the retried run gets the first charge, which ran once', async () => {
    const { charges, retried } = await abortThenRetry(true);
    expect(charges).toEqual([100]);
    expect(retried.content).toEqual([{ type: 'text', text: 'paid' }]);
    expect(resultsSent(api as FakeMessagesApi).at(-1)).toEqual(['toolu_7', 'charged 100', false]);
  });
});

describe('a refused call', () => {
  it('is answered as a tool_result with is_error that says it was NOT executed', async () => {
    const { charges, sendPayment } = provider();
    const guards = createGuardPipeline({
      fuses: createFuseBox({ permission: permissionFuse({ granted: ['read'], tools: { send_payment: ['pay'] } }) }),
      tools: { send_payment: { sideEffectClass: 'payment' } },
    }).forRun({ threadId: 'thread-1', runId: 'run-1' });
    await runTools(
      [{ toolUses: [pay('toolu_1')] }, { text: 'could not pay' }],
      guardRunnableTools([sendPayment], guards),
      true,
    );
    expect(charges).toEqual([]);
    const [answer] = resultsSent(api as FakeMessagesApi);
    expect(answer?.[0]).toBe('toolu_1');
    expect(answer?.[1]).toMatch(/NOT/);
    expect(answer?.[2]).toBe(true);
  });
});
