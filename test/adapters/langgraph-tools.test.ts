/**
 * `guardTools` and `guardToolNode` outside `createAgent`: answers with the call id, direct calls,
 * and the framework's control flow passing through.
 */
import { AIMessage, HumanMessage, type ToolMessage } from '@langchain/core/messages';
import { tool } from '@langchain/core/tools';
import { GraphInterrupt } from '@langchain/langgraph';
import { ToolNode } from '@langchain/langgraph/prebuilt';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardToolNode, guardTools, hyphaeMiddleware, ToolCallRefusedError } from '../../src/adapters/langchain.js';
import { createFuseBox, createLedger, createMemoryStorage, permissionFuse } from '../../src/index.js';
import { lookupTool, paymentTool } from '../helpers/langchain-tools.js';
import { ScriptedChatModel } from '../helpers/scripted-chat-model.js';

const denyPayments = () => ({
  fuses: createFuseBox({
    permission: permissionFuse({ granted: ['read'], tools: { send_payment: ['spend_money'], lookup: ['read'] } }),
  }),
});

function aiWithCalls(...calls: { id: string; name: string; args: Record<string, unknown> }[]) {
  return new AIMessage({ content: '', tool_calls: calls.map((call) => ({ ...call, type: 'tool_call' as const })) });
}

describe('guardToolNode', () => {
  it('answers a refused call with an error ToolMessage carrying its id, next to a call that ran', async () => {
    const pay = paymentTool();
    const lookup = lookupTool();
    const node = guardToolNode(new ToolNode([pay.tool, lookup.tool]), denyPayments());
    const message = aiWithCalls(
      { id: 'call_pay', name: 'send_payment', args: { amount: 3 } },
      { id: 'call_look', name: 'lookup', args: { id: 'o_1' } },
    );

    const output = (await node.invoke({ messages: [new HumanMessage('go'), message] })) as { messages: ToolMessage[] };

    expect(output.messages.map((answer) => [answer.tool_call_id, answer.status])).toEqual([
      ['call_pay', 'error'],
      ['call_look', 'success'],
    ]);
    expect(String(output.messages[0]?.content)).toContain('NOT');
    expect(pay.runs()).toBe(0);
    expect(lookup.runs()).toBe(1);
  });

  it('keeps the node class and options, and leaves the original node unguarded', async () => {
    const pay = paymentTool();
    const original = new ToolNode([pay.tool], { name: 'payments', handleToolErrors: false });
    const guarded = guardToolNode(original, denyPayments());

    expect(guarded).toBeInstanceOf(ToolNode);
    expect(guarded).not.toBe(original);
    expect(guarded.handleToolErrors).toBe(false);
    expect(guarded.tools[0]?.name).toBe('send_payment');
    await original.invoke({ messages: [aiWithCalls({ id: 'c', name: 'send_payment', args: { amount: 1 } })] });
    expect(pay.runs()).toBe(1);
  });
});

describe('guardTools', () => {
  it('runs a direct call and returns the value; a refused direct call throws', async () => {
    const [lookup, pay] = guardTools([lookupTool().tool, paymentTool().tool], denyPayments());

    await expect(lookup?.invoke({ id: 'o_2' })).resolves.toBe('{"id":"o_2","status":"shipped"}');
    await expect(pay?.invoke({ amount: 1 })).rejects.toBeInstanceOf(ToolCallRefusedError);
  });

  it('returns the recorded result for a redispatched call id instead of running the body', async () => {
    const pay = paymentTool();
    const ledger = createLedger({ storage: createMemoryStorage(), agentId: 'a', policyVersion: '1' });
    const [guarded] = guardTools([pay.tool], { ledger });
    const call = { id: 'call_1', name: 'send_payment', args: { amount: 2 }, type: 'tool_call' as const };
    const config = { configurable: { thread_id: 't' } };

    const first = (await guarded?.invoke(call, config)) as ToolMessage;
    const again = (await guarded?.invoke(call, config)) as ToolMessage;

    expect(pay.runs()).toBe(1);
    expect([first.tool_call_id, first.content]).toEqual(['call_1', 'paid 2']);
    expect([again.tool_call_id, again.content, again.status]).toEqual(['call_1', 'paid 2', 'success']);
  });
});

describe('control flow', () => {
  type WrapToolCall = (request: unknown, handler: (request: unknown) => Promise<unknown>) => Promise<unknown>;
  const wrapOf = (middleware: object) => (middleware as { wrapToolCall: WrapToolCall }).wrapToolCall;
  const request = (signal?: AbortSignal) => ({
    toolCall: { id: 'call_1', name: 'lookup', args: {} },
    state: { messages: [new HumanMessage({ id: 'h', content: 'go' })] },
    runtime: { configurable: { thread_id: 't' }, signal },
  });

  it('re-throws graph interrupts and aborts from wrapToolCall, answers any other error', async () => {
    const wrap = wrapOf(hyphaeMiddleware({}));
    const interrupt = new GraphInterrupt([]);
    await expect(wrap(request(), async () => Promise.reject(interrupt))).rejects.toBe(interrupt);

    const controller = new AbortController();
    controller.abort();
    const abort = new DOMException('stop', 'AbortError');
    await expect(wrap(request(controller.signal), async () => Promise.reject(abort))).rejects.toBe(abort);

    const answer = (await wrap(request(), async () => Promise.reject(new Error('boom')))) as ToolMessage;
    expect([answer.tool_call_id, answer.status]).toEqual(['call_1', 'error']);
    expect(String(answer.content)).toContain('boom');
  });

  it('re-throws an abort instead of answering it as a tool error', async () => {
    const controller = new AbortController();
    const wait = tool(
      async (_args, config) =>
        new Promise<string>((_resolve, reject) => {
          const signal = (config as { signal?: AbortSignal }).signal;
          signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          controller.abort(new DOMException('stop', 'AbortError'));
        }),
      { name: 'wait', description: 'Waits', schema: z.object({}) },
    );
    const model = new ScriptedChatModel([{ calls: [{ id: 'call_w', name: 'wait' }] }, { text: 'no' }]);
    const agent = createAgent({ model, tools: [wait], middleware: [hyphaeMiddleware({})] });

    await expect(
      agent.invoke({ messages: [new HumanMessage('wait')] }, { signal: controller.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(model.remaining).toBe(1);
  });
});
