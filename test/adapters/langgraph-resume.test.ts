/**
 * LangGraph's own resume path re-runs a tool step: after an interrupt (`Command({ resume })`) or a
 * failure (`invoke(null)`) on the same thread. The guarded tool body runs once; the stock one
 * twice (each stock case is here to show that the trap is real in this version).
 */
import type { BaseMessage } from '@langchain/core/messages';
import { ToolMessage } from '@langchain/core/messages';
import { Command, END, isInterrupted, MemorySaver, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { createAgent, createMiddleware } from 'langchain';
import { describe, expect, it } from 'vitest';
import { type GuardPipelineOptions, guardToolNode, hyphaeMiddleware } from '../../src/adapters/langchain.js';
import { createFuseBox, createLedger, createMemoryStorage, loopFuse, permissionFuse } from '../../src/index.js';
import { confirmTool, paymentTool } from '../helpers/langchain-tools.js';
import { ScriptedChatModel } from '../helpers/scripted-chat-model.js';

const thread = { configurable: { thread_id: 'thread-7' } };

function guards(): GuardPipelineOptions {
  return {
    ledger: createLedger({ storage: createMemoryStorage(), agentId: 'billing', policyVersion: '1' }),
    // `confirm` interrupts inside its body, so it must be allowed to run again on resume.
    tools: { send_payment: { sideEffectClass: 'payment' }, confirm: { sideEffectClass: 'read', ledger: false } },
  };
}

const payAndConfirm = () =>
  new ScriptedChatModel([
    {
      calls: [
        { id: 'call_pay', name: 'send_payment', args: { amount: 5 } },
        { id: 'call_confirm', name: 'confirm' },
      ],
    },
    { text: 'all done' },
  ]);

function answers(messages: readonly BaseMessage[]): [string, unknown][] {
  return messages
    .filter((message): message is ToolMessage => ToolMessage.isInstance(message))
    .map((message) => [message.tool_call_id, message.content]);
}

describe('createAgent resumed after an interrupt', () => {
  async function interruptThenResume(middleware: boolean) {
    const pay = paymentTool();
    const confirm = confirmTool();
    const agent = createAgent({
      model: payAndConfirm(),
      tools: [pay.tool, confirm.tool],
      checkpointer: new MemorySaver(),
      // v1 runs all calls of a turn in one tool step, so the interrupt re-runs its siblings.
      version: 'v1',
      middleware: middleware ? [hyphaeMiddleware(guards())] : [],
    });
    const first = await agent.invoke({ messages: [{ role: 'user', content: 'pay 5' }] }, thread);
    expect(first.__interrupt__).toHaveLength(1);
    const resumed = await agent.invoke(new Command({ resume: 'yes' }), thread);
    return { pay, confirm, resumed };
  }

  it('stock: the payment body runs again on resume', async () => {
    const { pay } = await interruptThenResume(false);
    expect(pay.runs()).toBe(2);
  });

  it('guarded: the payment body runs once, the resume returns its recorded result', async () => {
    const { pay, confirm, resumed } = await interruptThenResume(true);
    expect(pay.runs()).toBe(1);
    expect(confirm.runs()).toBe(2);
    expect(answers(resumed.messages)).toEqual([
      ['call_pay', 'paid 5'],
      ['call_confirm', 'confirmed: yes'],
    ]);
    expect(resumed.messages.at(-1)?.content).toBe('all done');
  });
});

describe('a resumed step is one call to the fuses too', () => {
  it('does not count the replayed calls again: a loop threshold of 2 lets the resume through', async () => {
    const pay = paymentTool();
    const confirm = confirmTool();
    const strict = {
      ...guards(),
      fuses: createFuseBox({
        loop: loopFuse({ repeatThreshold: 2 }),
        permission: permissionFuse({
          granted: ['pay', 'ask'],
          tools: { send_payment: ['pay'], confirm: ['ask'], issue_refund: ['refund'] },
          maxDenials: 2,
        }),
      }),
    };
    const model = new ScriptedChatModel([
      {
        calls: [
          { id: 'call_pay', name: 'send_payment', args: { amount: 5 } },
          { id: 'call_refund', name: 'issue_refund', args: {} },
          { id: 'call_confirm', name: 'confirm' },
        ],
      },
      { text: 'all done' },
    ]);
    const agent = createAgent({
      model,
      tools: [pay.tool, confirm.tool],
      checkpointer: new MemorySaver(),
      version: 'v1',
      middleware: [hyphaeMiddleware(strict)],
    });
    await agent.invoke({ messages: [{ role: 'user', content: 'pay 5' }] }, thread);
    const resumed = await agent.invoke(new Command({ resume: 'yes' }), thread);

    expect(pay.runs()).toBe(1);
    const [paid, refund, confirmed] = answers(resumed.messages);
    expect(paid).toEqual(['call_pay', 'paid 5']);
    // Denied once, not twice: the replay did not make the denial terminal.
    expect(String(refund?.[1])).not.toContain('stopped');
    expect(confirmed).toEqual(['call_confirm', 'confirmed: yes']);
    expect(resumed.messages.at(-1)?.content).toBe('all done');
  });
});

describe('createAgent resumed after a failure', () => {
  /** Crashes once after the tool ran (an audit write that failed, say): the step fails. */
  function crashOnceAfterTool() {
    let crashed = false;
    return createMiddleware({
      name: 'FlakyAudit',
      wrapToolCall: async (request, handler) => {
        const result = await handler(request);
        if (!crashed) {
          crashed = true;
          throw new Error('audit store unavailable');
        }
        return result;
      },
    });
  }

  async function failThenRetry(guarded: boolean) {
    const pay = paymentTool();
    const model = new ScriptedChatModel([
      { calls: [{ id: 'call_pay', name: 'send_payment', args: { amount: 9 } }] },
      { text: 'paid' },
    ]);
    const agent = createAgent({
      model,
      tools: [pay.tool],
      checkpointer: new MemorySaver(),
      // The flaky middleware is the outer one: it fails after the guarded call completed.
      middleware: guarded ? [crashOnceAfterTool(), hyphaeMiddleware(guards())] : [crashOnceAfterTool()],
    });
    await expect(agent.invoke({ messages: [{ role: 'user', content: 'pay 9' }] }, thread)).rejects.toThrow(
      'audit store unavailable',
    );
    const retried = await agent.invoke(null, thread);
    return { pay, retried };
  }

  it('stock: the retried step runs the payment body again', async () => {
    const { pay } = await failThenRetry(false);
    expect(pay.runs()).toBe(2);
  });

  it('guarded: the retried step returns the recorded result', async () => {
    const { pay, retried } = await failThenRetry(true);
    expect(pay.runs()).toBe(1);
    expect(answers(retried.messages)).toEqual([['call_pay', 'paid 9']]);
    expect(retried.messages.at(-1)?.content).toBe('paid');
  });
});

describe('guardToolNode in a custom graph resumed after an interrupt', () => {
  function graph(tools: ToolNode | ((state: unknown, config?: unknown) => Promise<unknown>)) {
    const model = payAndConfirm();
    return new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode('tools', tools)
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition, ['tools', END])
      .addEdge('tools', 'agent')
      .compile({ checkpointer: new MemorySaver() });
  }

  async function interruptThenResume(wrap: (node: ToolNode) => ToolNode) {
    const pay = paymentTool();
    const confirm = confirmTool();
    const app = graph(wrap(new ToolNode([pay.tool, confirm.tool])));
    const first = await app.invoke({ messages: [{ role: 'user', content: 'pay 5' }] }, thread);
    expect(isInterrupted(first)).toBe(true);
    const resumed = await app.invoke(new Command({ resume: 'ok' }), thread);
    return { pay, resumed };
  }

  it('stock: the payment body runs again on resume', async () => {
    const { pay } = await interruptThenResume((node) => node);
    expect(pay.runs()).toBe(2);
  });

  it('guarded: the payment body runs once', async () => {
    const { pay, resumed } = await interruptThenResume((node) => guardToolNode(node, guards()));
    expect(pay.runs()).toBe(1);
    expect(answers(resumed.messages)).toEqual([
      ['call_pay', 'paid 5'],
      ['call_confirm', 'confirmed: ok'],
    ]);
  });

  it('guarded from a tool list: a node function that resumes the same way', async () => {
    const pay = paymentTool();
    const confirm = confirmTool();
    const app = graph(guardToolNode([pay.tool, confirm.tool], guards()));
    await app.invoke({ messages: [{ role: 'user', content: 'pay 5' }] }, thread);
    const resumed = await app.invoke(new Command({ resume: 'ok' }), thread);
    expect(pay.runs()).toBe(1);
    expect(answers(resumed.messages)).toEqual([
      ['call_pay', 'paid 5'],
      ['call_confirm', 'confirmed: ok'],
    ]);
  });
});
