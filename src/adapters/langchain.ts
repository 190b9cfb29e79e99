/**
 * `hyphae/langchain`: the guard pipeline for LangChain v1 agents (`createAgent` middleware) and
 * for custom LangGraph graphs (a guarded `ToolNode`). Needs `@langchain/core` and
 * `@langchain/langgraph`; `langchain` itself only for `createAgent`.
 *
 * @module
 */
export { hyphaeMiddleware } from './langchain/middleware.js';
export { guardModelNode } from './langchain/model-node.js';
export { type StoppedRunVerdict, stoppedVerdictOf } from './langchain/stop.js';
export { guardToolNode, guardTools } from './langchain/tool-node.js';
export type {
  GuardedToolNodeFunction,
  GuardModelNodeOptions,
  GuardToolNodeOptions,
  GuardToolNodeRouting,
  HyphaeMiddleware,
  HyphaeMiddlewareOptions,
  LangChainGuards,
  LangChainRunContext,
  LangChainScopeOptions,
  LangChainToolLike,
  LangGraphToolNodeLike,
} from './langchain/types.js';
export * from './shared/pipeline-api.js';
