import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { MemorySaver } from '@langchain/langgraph';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { createGuardPipeline, hyphaeMiddleware } from '../../src/adapters/langchain.js';
import {
  createFuseBox,
  createLedger,
  createMemoryStorage,
  loopFuse,
  permissionFuse,
  validateTranscript,
} from '../../src/index.js';
import { failingTool, lookupTool, paymentTool } from '../helpers/langchain-tools.js';
import { ScriptedChatModel } from '../helpers/scripted-chat-model.js';

function ledger() {
  return createLedger({ storage: createMemoryStorage(), agentId: 'agent', policyVersion: '1' });
}

function toolMessages(messages: readonly BaseMessage[]): ToolMessage[] {
  return messages.filter((message): message is ToolMessage => ToolMessage.isInstance(message));
}

/** The transcript in OpenAI chat form, for `validateTranscript`. */
function chatForm(messages: readonly BaseMessage[]) {
  return messages.map((message) => {
    if (ToolMessage.isInstance(message)) return { role: 'tool', tool_call_id: message.tool_call_id, content: 'x' };
    if (AIMessage.isInstance(message)) {
      const calls = message.tool_calls ?? [];
      return calls.length === 0
        ? { role: 'assistant', content: 'x' }
        : {
            role: 'assistant',
            content: '',
            tool_calls: calls.map((call) => ({
              id: call.id,
              type: 'function',
              function: { name: call.name, arguments: '{}' },
            })),
          };
    }
    return { role: 'user', content: 'x' };
  });
}

const ask = (text: string) => ({ messages: [new HumanMessage(text)] });

describe('hyphaeMiddleware: tool calls', () => {
  it('runs a call through the ledger and answers with the same call id', async () => {
    const pay = paymentTool();
    const model = new ScriptedChatModel([
      { calls: [{ id: 'call_1', name: 'send_payment', args: { amount: 5 } }] },
      { text: 'done' },
    ]);
    const guards = createGuardPipeline({ ledger: ledger(), tools: { send_payment: { sideEffectClass: 'payment' } } });
    const agent = createAgent({ model, tools: [pay.tool], middleware: [hyphaeMiddleware(guards)] });

    const result = await agent.invoke(ask('pay 5'));

    expect(pay.runs()).toBe(1);
    const [answer] = toolMessages(result.messages);
    expect(answer).toMatchObject({ tool_call_id: 'call_1', content: 'paid 5', status: 'success' });
    const records = await guards.ledger?.list();
    expect(records?.records).toHaveLength(1);
    expect(records?.records[0]).toMatchObject({ tool: 'send_payment', ticket: 'call_1', outcome: 'COMPLETED' });
    expect(result.messages.at(-1)?.content).toBe('done');
  });

  it('answers a denied call with an error tool message saying it did NOT happen, and the agent goes on', async () => {
    const pay = paymentTool();
    const model = new ScriptedChatModel([
      { calls: [{ id: 'call_pay', name: 'send_payment', args: { amount: 40 } }] },
      { text: 'I cannot pay' },
    ]);
    const fuses = createFuseBox({
      permission: permissionFuse({ granted: ['read'], tools: { send_payment: ['spend_money'] } }),
    });
    const agent = createAgent({ model, tools: [pay.tool], middleware: [hyphaeMiddleware({ fuses })] });

    const result = await agent.invoke(ask('pay 40'));

    expect(pay.runs()).toBe(0);
    const [refusal] = toolMessages(result.messages);
    expect(refusal).toMatchObject({ tool_call_id: 'call_pay', status: 'error', name: 'send_payment' });
    expect(String(refusal?.content)).toContain('NOT');
    expect(result.messages.at(-1)?.content).toBe('I cannot pay');
  });

  it('refuses arguments that fail the declared schema before the body runs', async () => {
    const pay = paymentTool();
    const model = new ScriptedChatModel([
      { calls: [{ id: 'call_neg', name: 'send_payment', args: { amount: -3 } }] },
      { text: 'ok' },
    ]);
    const middleware = hyphaeMiddleware({
      ledger: ledger(),
      tools: {
        send_payment: { sideEffectClass: 'payment', schema: { amount: { type: 'number', minimum: 1 } } },
      },
    });
    const agent = createAgent({ model, tools: [pay.tool], middleware: [middleware] });

    const result = await agent.invoke(ask('pay -3'));

    expect(pay.runs()).toBe(0);
    const [refusal] = toolMessages(result.messages);
    expect(refusal).toMatchObject({ tool_call_id: 'call_neg', status: 'error' });
    // No transition is claimed: the refusal is kept only as a denial record.
    expect(await middleware.pipeline.ledger?.list({ kind: 'tool' })).toMatchObject({ records: [] });
    const denials = (await middleware.pipeline.ledger?.list({ kind: 'denial' }))?.records ?? [];
    expect(denials.map((d) => [d.ticket, d.outcome])).toEqual([['call_neg', 'BLOCKED']]);
  });

  it('catches a tool error itself and answers with an error tool message', async () => {
    const explode = failingTool('gateway timeout');
    const model = new ScriptedChatModel([{ calls: [{ id: 'call_x', name: 'explode' }] }, { text: 'sorry' }]);
    const agent = createAgent({
      model,
      tools: [explode.tool],
      middleware: [hyphaeMiddleware({ ledger: ledger(), tools: { explode: { sideEffectClass: 'read' } } })],
    });

    const result = await agent.invoke(ask('go'));

    expect(explode.runs()).toBe(1);
    const [failure] = toolMessages(result.messages);
    expect(failure).toMatchObject({ tool_call_id: 'call_x', status: 'error' });
    expect(String(failure?.content)).toContain('gateway timeout');
    expect(result.messages.at(-1)?.content).toBe('sorry');
  });

  it('answers a parallel call to an unknown tool without breaking its siblings', async () => {
    const lookup = lookupTool();
    const model = new ScriptedChatModel([
      {
        calls: [
          { id: 'call_a', name: 'lookup', args: { id: 'o_1' } },
          { id: 'call_b', name: 'delete_repo', args: {} },
        ],
      },
      { text: 'done' },
    ]);
    const agent = createAgent({ model, tools: [lookup.tool], middleware: [hyphaeMiddleware({ ledger: ledger() })] });

    const result = await agent.invoke(ask('look'));

    const answers = toolMessages(result.messages);
    expect(answers.map((message) => [message.tool_call_id, message.status])).toEqual([
      ['call_a', 'success'],
      ['call_b', 'error'],
    ]);
    expect(validateTranscript(chatForm(result.messages)).ok).toBe(true);
  });
});

describe('hyphaeMiddleware: call ids', () => {
  it('runs a call again when a later turn reuses its id (no ledger to say it ran)', async () => {
    const lookup = lookupTool();
    const reused = { calls: [{ id: 'call_0', name: 'lookup', args: { id: 'o_1' } }] };
    const model = new ScriptedChatModel([reused, reused, { text: 'done' }]);
    const fuses = createFuseBox({ loop: loopFuse({ repeatThreshold: 5 }) });
    const agent = createAgent({ model, tools: [lookup.tool], middleware: [hyphaeMiddleware({ fuses })] });

    await agent.invoke(ask('look twice'));

    expect(lookup.runs()).toBe(2);
  });
});

describe('hyphaeMiddleware: stopping a run', () => {
  it('stops the run on a terminal refusal: siblings refused, no further model call, a final message', async () => {
    const lookup = lookupTool();
    const model = new ScriptedChatModel([
      { calls: [{ id: 'c1', name: 'lookup', args: { id: 'o_1' } }] },
      { calls: [{ id: 'c2', name: 'lookup', args: { id: 'o_1' } }] },
      {
        calls: [
          { id: 'c3', name: 'lookup', args: { id: 'o_1' } },
          { id: 'c4', name: 'lookup', args: { id: 'o_2' } },
        ],
      },
      { text: 'never sent' },
    ]);
    const fuses = createFuseBox({ loop: loopFuse({ repeatThreshold: 3, terminal: true }) });
    const agent = createAgent({
      model,
      tools: [lookup.tool],
      middleware: [hyphaeMiddleware({ fuses }, { stopMessage: (refusal) => `stopped: ${refusal.code}` })],
    });

    const result = await agent.invoke(ask('loop'));

    expect(lookup.runs()).toBe(2);
    expect(model.remaining).toBe(1);
    const answers = toolMessages(result.messages);
    expect(answers.map((message) => [message.tool_call_id, message.status])).toEqual([
      ['c1', 'success'],
      ['c2', 'success'],
      ['c3', 'error'],
      ['c4', 'error'],
    ]);
    expect(String(answers[3]?.content)).toContain('NOT executed');
    expect(result.messages.at(-1)).toMatchObject({ content: 'stopped: loop_repeat' });
    expect(validateTranscript(chatForm(result.messages)).ok).toBe(true);
  });

  it('starts the next run on the thread with fresh counters after a run ended at a stop', async () => {
    const lookup = lookupTool();
    const same = { id: 'call', name: 'lookup', args: { id: 'o_1' } };
    const model = new ScriptedChatModel([
      { calls: [{ ...same, id: 'a1' }] },
      { calls: [{ ...same, id: 'a2' }] },
      { calls: [{ ...same, id: 'a3' }] },
      { calls: [{ ...same, id: 'b1' }] },
      { text: 'fine' },
    ]);
    const fuses = createFuseBox({ loop: loopFuse({ repeatThreshold: 3, terminal: true }) });
    const agent = createAgent({
      model,
      tools: [lookup.tool],
      middleware: [hyphaeMiddleware({ fuses })],
      checkpointer: new MemorySaver(),
    });
    const thread = { configurable: { thread_id: 'thread-1' } };

    const first = await agent.invoke(ask('first'), thread);
    const second = await agent.invoke(ask('second'), thread);

    expect(toolMessages(first.messages).map((message) => message.status)).toEqual(['success', 'success', 'error']);
    // The second run's transcript holds the first run's messages too.
    expect(toolMessages(second.messages).map((message) => message.status)).toEqual([
      'success',
      'success',
      'error',
      'success',
    ]);
    expect(second.messages.at(-1)?.content).toBe('fine');
  });
});
