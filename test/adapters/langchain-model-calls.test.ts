/**
 * The model side of `hyphaeMiddleware`: the budget at the provider boundary and the transcript
 * repair before each model call.
 */
import { AIMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';

import { type GuardEvent, hyphaeMiddleware } from '../../src/adapters/langchain.js';
import { budgetFuse, createFuseBox } from '../../src/index.js';
import { lookupTool } from '../helpers/langchain-tools.js';
import { ScriptedChatModel } from '../helpers/scripted-chat-model.js';

const lookupCall = (id: string) => ({ calls: [{ id, name: 'lookup', args: { id: 'o_1' } }] });

describe('hyphaeMiddleware: budget', () => {
  it('books real usage and, once over the ceiling, answers the pending calls and ends the run', async () => {
    const lookup = lookupTool();
    const model = new ScriptedChatModel([
      { ...lookupCall('c1'), usage: { input: 40, output: 10 } },
      // The pre-flight lets this call through; its real usage takes the run over the ceiling.
      { ...lookupCall('c2'), usage: { input: 200, output: 10 } },
      { text: 'never sent' },
    ]);
    const fuses = createFuseBox({ budget: budgetFuse({ maxTokens: 250 }) });
    const agent = createAgent({
      model,
      tools: [lookup.tool],
      middleware: [hyphaeMiddleware({ fuses }, { maxOutputTokens: 10 })],
    });

    const result = await agent.invoke({ messages: [new HumanMessage('look')] });

    expect(lookup.runs()).toBe(1);
    expect(model.remaining).toBe(1);
    const answers = result.messages.filter((message) => ToolMessage.isInstance(message));
    expect(answers.map((message) => [message.tool_call_id, message.status])).toEqual([
      ['c1', 'success'],
      ['c2', 'error'],
    ]);
    expect(String(answers[1]?.content)).toContain('NOT executed');
    expect(AIMessage.isInstance(result.messages.at(-1))).toBe(true);
    expect(String(result.messages.at(-1)?.content)).toMatch(/budget|ceiling|limit/i);
  });

  it('refuses a model call the pre-flight cannot fit: the model is not called', async () => {
    const lookup = lookupTool();
    const model = new ScriptedChatModel([{ ...lookupCall('c1'), usage: { input: 90, output: 5 } }, { text: 'never' }]);
    const fuses = createFuseBox({ budget: budgetFuse({ maxTokens: 100 }) });
    const agent = createAgent({
      model,
      tools: [lookup.tool],
      middleware: [hyphaeMiddleware({ fuses }, { maxOutputTokens: 10 })],
    });

    const result = await agent.invoke({ messages: [new HumanMessage('look')] });

    expect(model.prompts).toHaveLength(1);
    expect(model.remaining).toBe(1);
    expect(lookup.runs()).toBe(1);
    expect(String(result.messages.at(-1)?.content)).toContain('NOT');
  });
});

describe('hyphaeMiddleware: transcript repair', () => {
  it('answers an unanswered call and drops an orphan result before the model sees them', async () => {
    const lookup = lookupTool();
    const model = new ScriptedChatModel([{ text: 'fresh answer' }]);
    const events: GuardEvent[] = [];
    const agent = createAgent({
      model,
      tools: [lookup.tool],
      middleware: [hyphaeMiddleware({ onEvent: (event) => events.push(event) })],
    });
    const history = [
      new HumanMessage({ id: 'h1', content: 'earlier' }),
      new AIMessage({ id: 'a1', content: '', tool_calls: [{ id: 'call_lost', name: 'lookup', args: { id: 'o_9' } }] }),
      new ToolMessage({ id: 't1', content: 'stray', tool_call_id: 'call_orphan' }),
      new HumanMessage({ id: 'h2', content: 'now' }),
    ];

    const result = await agent.invoke({ messages: history });

    const [prompt] = model.prompts;
    const tools = (prompt ?? []).filter((message) => ToolMessage.isInstance(message));
    expect(tools.map((message) => [message.tool_call_id, message.status, message.name])).toEqual([
      ['call_lost', 'error', 'lookup'],
    ]);
    expect(String(tools[0]?.content)).toContain('NOT executed');
    expect(lookup.runs()).toBe(0);
    expect(events.some((event) => event.type === 'transcript_repair')).toBe(true);
    // The prompt is repaired, ids kept; the graph state is left as it was (no extra graph step).
    expect((prompt ?? []).map((message) => message.id).slice(0, 2)).toEqual(['h1', 'a1']);
    expect((prompt ?? []).some((message) => message.id === 't1')).toBe(false);
    expect(result.messages.map((message) => message.getType())).toEqual(['human', 'ai', 'tool', 'human', 'ai']);
  });

  it('leaves a well-formed transcript as it is (the same message objects)', async () => {
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const events: GuardEvent[] = [];
    const agent = createAgent({
      model,
      tools: [],
      middleware: [hyphaeMiddleware({ onEvent: (event) => events.push(event) })],
    });
    await agent.invoke({ messages: [new HumanMessage('hi')] });
    expect(events.filter((event) => event.type === 'transcript_repair')).toEqual([]);
    expect(model.prompts[0]?.map((message) => message.content)).toEqual(['hi']);
  });

  it('can be turned off', async () => {
    const model = new ScriptedChatModel([{ text: 'ok' }]);
    const agent = createAgent({
      model,
      tools: [],
      middleware: [hyphaeMiddleware({}, { repairTranscript: false })],
    });
    const orphan = new ToolMessage({ content: 'stray', tool_call_id: 'call_orphan' });
    await agent.invoke({ messages: [new HumanMessage('hi'), orphan, new HumanMessage('again')] });
    expect(model.prompts[0]?.some((message) => ToolMessage.isInstance(message))).toBe(true);
  });
});
