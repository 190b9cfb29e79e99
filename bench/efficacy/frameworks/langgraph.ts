/**
 * A custom LangGraph graph: `StateGraph(MessagesAnnotation)` with a model node, a prebuilt
 * `ToolNode` and `toolsCondition`, at the default `recursionLimit` (25). Guarded wraps the model
 * node with `guardModelNode` and the tool node with `guardToolNode`, on one pipeline.
 */
import { MessagesAnnotation, START, StateGraph } from '@langchain/langgraph';
import { ToolNode, toolsCondition } from '@langchain/langgraph/prebuilt';
import { guardModelNode, guardToolNode } from '../../../src/adapters/langchain.js';
import type { Deliver } from '../harness.js';
import { endingOf, messagesOf, ScriptedChatModel, toolsOf } from './langchain-model.js';

/** One delivery through the graph, stock or guarded. */
export const deliverLangGraph: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  const model = new ScriptedChatModel(scenario, meter);
  const callModel = async (state: typeof MessagesAnnotation.State) => ({
    messages: [await model.invoke(state.messages)],
  });
  const tools = new ToolNode(toolsOf(scenario, provider));
  const graph = new StateGraph(MessagesAnnotation)
    .addNode('agent', pipeline === undefined ? callModel : guardModelNode(callModel, pipeline, { model: model.model }))
    .addNode('tools', pipeline === undefined ? tools : guardToolNode(tools, pipeline))
    .addEdge(START, 'agent')
    .addConditionalEdges('agent', toolsCondition)
    .addEdge('tools', 'agent')
    .compile();
  const result = await graph.invoke(
    { messages: messagesOf(scenario, scope.runId) },
    { configurable: { thread_id: scope.threadId } },
  );
  return endingOf(result.messages);
};
