/**
 * `hyphae/openai-agents`: the guard pipeline for `@openai/agents` — guarded function tools, a
 * tool input guardrail that ends a stopped run, a model input filter that repairs the transcript,
 * and a guarded `Model` (or `ModelProvider`) that runs the budget before each model request.
 *
 * @module
 */
export { guardAgentTool, guardAgentTools } from './openai-agents/guard-agent-tool.js';
export { guardModel, guardModelProvider } from './openai-agents/guard-model.js';
export { hyphaeCallModelInputFilter } from './openai-agents/input-filter.js';
export { hyphaeToolInputGuardrail } from './openai-agents/input-guardrail.js';
export { stoppedVerdictOf } from './openai-agents/stop-response.js';
export type {
  AgentCallModelInputFilter,
  AgentFunctionToolLike,
  AgentGuardrailOptions,
  AgentGuards,
  AgentInputFilterOptions,
  AgentModelInputData,
  AgentModelLike,
  AgentModelProviderLike,
  AgentModelRequestLike,
  AgentRunScope,
  AgentScopeOptions,
  AgentToolGuardrailData,
  AgentToolGuardrailOutput,
  AgentToolInputGuardrail,
  AgentToolLike,
  GuardAgentModelOptions,
  GuardAgentToolOptions,
  GuardedAgentModel,
  GuardedAgentModelProvider,
} from './openai-agents/types.js';
export * from './shared/pipeline-api.js';
