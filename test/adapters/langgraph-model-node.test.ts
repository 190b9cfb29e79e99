/**
 * `guardModelNode` with `guardToolNode` in a custom LangGraph graph: the two share the run, so a
 * loop the tool node refused ends the graph at the model node; the budget pre-flight and the
 * transcript repair run before the model; a blocked turn routes where `onBlock` says.
 */
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import { END, GraphRecursionError, MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { describe, expect, it } from 'vitest';
import { createGuardPipeline, guardModelNode, guardToolNode, stoppedVerdictOf } from '../../src/adapters/langchain.js';
import { budgetFuse, createFuseBox, createLedger, createMemoryStorage, loopFuse } from '../../src/index.js';
import { lookupTool } from '../helpers/langchain-tools.js';
import { ScriptedChatModel, type ScriptedTurn } from '../helpers/scripted-chat-model.js';

const same = (n: number): ScriptedTurn[] =>
  Array.from({ length: n }, (_, i) => ({ calls: [{ id: `call_${i}`, name: 'lookup', args: { id: 'o_1' } }] }));

function pipeline(extra: { budget?: ReturnType<typeof budgetFuse> } = {}) {
  return createGuardPipeline({
    ledger: createLedger({ storage: createMemoryStorage(), agentId: 'graph', policyVersion: '1' }),
    fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3, terminal: true }), ...extra }),
    tools: { lookup: { sideEffectClass: 'read' } },
  });
}

function graphOf(model: ScriptedChatModel, tools: ReturnType<typeof lookupTool>, guards?: ReturnType<typeof pipeline>) {
  const settings = { model: 'gpt-4o-mini', maxOutputTokens: 50 };
  const callModel = async (state: typeof MessagesAnnotation.State) => ({
    messages: [await model.invoke(state.messages)],
  });
  const toolNode = new ToolNode([tools.tool]);
  return new StateGraph(MessagesAnnotation)
    .addNode('agent', guards === undefined ? callModel : guardModelNode(callModel, guards, settings))
    .addNode('tools', guards === undefined ? toolNode : guardToolNode(toolNode, guards))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition)
    .addEdge('tools', 'agent')
    .compile();
}

describe('guardModelNode', () => {
  it('ends a looping graph at the model node: 2 executions, 3 model calls, the verdict on the last message', async () => {
    const stockTool = lookupTool();
    const stockModel = new ScriptedChatModel(same(30));
    await expect(graphOf(stockModel, stockTool).invoke({ messages: [new HumanMessage('go')] })).rejects.toBeInstanceOf(
      GraphRecursionError,
    );
    expect(stockTool.runs()).toBe(12);

    const tool = lookupTool();
    const model = new ScriptedChatModel(same(30));
    const result = await graphOf(model, tool, pipeline()).invoke({ messages: [new HumanMessage('go')] });

    expect([tool.runs(), model.prompts.length]).toEqual([2, 3]);
    const last = result.messages.at(-1);
    expect(AIMessage.isInstance(last) && (last.tool_calls ?? []).length).toBe(0);
    expect(stoppedVerdictOf(last)?.code).toBe('loop_repeat');
  });

  it('refuses a model call the budget cannot fit before it is made, and books real usage', async () => {
    const tool = lookupTool();
    const model = new ScriptedChatModel([
      { calls: [{ id: 'c1', name: 'lookup', args: { id: 'o_1' } }], usage: { input: 900, output: 50 } },
      { text: 'never sent' },
    ]);
    const guards = pipeline({ budget: budgetFuse({ maxTokens: 1_000 }) });
    const graph = graphOf(model, tool, guards);

    const result = await graph.invoke({ messages: [new HumanMessage('go')] }, { recursionLimit: 25 });

    expect(model.prompts).toHaveLength(1);
    expect(stoppedVerdictOf(result.messages.at(-1))?.stage).toBe('model');
  });

  it('repairs the prompt: a dangling call is answered before the model sees it', async () => {
    const tool = lookupTool();
    const model = new ScriptedChatModel([{ text: 'fine' }]);
    const history: BaseMessage[] = [
      new HumanMessage({ id: 'h1', content: 'earlier' }),
      new AIMessage({ id: 'a1', content: '', tool_calls: [{ id: 'lost', name: 'lookup', args: { id: 'o_1' } }] }),
      new HumanMessage({ id: 'h2', content: 'now' }),
    ];

    await graphOf(model, tool, pipeline()).invoke({ messages: history });

    const prompt = model.prompts[0] ?? [];
    expect(
      prompt.filter((message) => ToolMessage.isInstance(message)).map((m) => (m as ToolMessage).tool_call_id),
    ).toEqual(['lost']);
  });
});

describe('guardToolNode routing', () => {
  it('sends a blocked turn to the node `onBlock` names, an ordinary one to `next`', async () => {
    const tool = lookupTool();
    const model = new ScriptedChatModel(same(30));
    const guards = pipeline();
    const reported: string[] = [];
    const graph = new StateGraph(MessagesAnnotation)
      .addNode(
        'agent',
        guardModelNode(
          async (state: typeof MessagesAnnotation.State) => ({ messages: [await model.invoke(state.messages)] }),
          guards,
        ),
      )
      .addNode('tools', guardToolNode(new ToolNode([tool.tool]), guards, { next: 'agent', onBlock: 'report' }), {
        ends: ['agent', 'report'],
      })
      .addNode('report', async (state: typeof MessagesAnnotation.State) => {
        reported.push(String(state.messages.at(-1)?.content));
        return { messages: [new AIMessage('I stopped: the same lookup kept coming back')] };
      })
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition)
      .addEdge('report', END)
      .compile();

    const result = await graph.invoke({ messages: [new HumanMessage('go')] });

    expect([tool.runs(), model.prompts.length]).toEqual([2, 3]);
    expect(reported).toHaveLength(1);
    expect(reported[0]).toContain('NOT');
    expect(result.messages.at(-1)?.content).toBe('I stopped: the same lookup kept coming back');
  });

  it('ends a blocked turn with the stop answer when `onBlock` is the end', async () => {
    const tool = lookupTool();
    const model = new ScriptedChatModel(same(30));
    const guards = pipeline();
    const graph = new StateGraph(MessagesAnnotation)
      .addNode('agent', async (state) => ({ messages: [await model.invoke(state.messages)] }))
      .addNode('tools', guardToolNode([tool.tool], guards, { next: 'agent', onBlock: END }), { ends: ['agent', END] })
      .addEdge(START, 'agent')
      .addConditionalEdges('agent', toolsCondition)
      .compile();

    const result = await graph.invoke({ messages: [new HumanMessage('go')] });

    expect([tool.runs(), model.prompts.length]).toEqual([2, 3]);
    expect(stoppedVerdictOf(result.messages.at(-1))?.code).toBe('loop_repeat');
  });
});
