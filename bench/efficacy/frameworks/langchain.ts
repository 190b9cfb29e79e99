/**
 * LangChain v1 `createAgent` with a scripted chat model, at LangGraph's default `recursionLimit`
 * (25); guarded adds `hyphaeMiddleware`, which adds no graph step.
 */
import { createAgent } from 'langchain';
import { hyphaeMiddleware } from '../../../src/adapters/langchain.js';
import type { Deliver } from '../harness.js';
import { endingOf, messagesOf, ScriptedChatModel, toolsOf } from './langchain-model.js';

/** One delivery with `createAgent`, stock or guarded. */
export const deliverLangChain: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  const agent = createAgent({
    model: new ScriptedChatModel(scenario, meter),
    tools: toolsOf(scenario, provider),
    middleware: pipeline === undefined ? [] : [hyphaeMiddleware(pipeline)],
  });
  const result = await agent.invoke(
    { messages: messagesOf(scenario, scope.runId) },
    { configurable: { thread_id: scope.threadId } },
  );
  return endingOf(result.messages);
};
