/**
 * `hyphae/openai-agents`: the guard pipeline for `@openai/agents` — guarded function tools, a
 * tool input guardrail that ends a stopped run, and a model input filter that repairs the
 * transcript.
 */
export { guardAgentTool, guardAgentTools } from './openai-agents/guard-agent-tool.js';
export { hyphaeCallModelInputFilter } from './openai-agents/input-filter.js';
export { hyphaeToolInputGuardrail } from './openai-agents/input-guardrail.js';
export type {
  AgentCallModelInputFilter,
  AgentFunctionToolLike,
  AgentGuardrailOptions,
  AgentGuards,
  AgentInputFilterOptions,
  AgentModelInputData,
  AgentRunScope,
  AgentScopeOptions,
  AgentToolGuardrailData,
  AgentToolGuardrailOutput,
  AgentToolInputGuardrail,
  AgentToolLike,
  GuardAgentToolOptions,
} from './openai-agents/types.js';
export {
  createGuardPipeline,
  type GuardEvent,
  type GuardedToolSpec,
  type GuardPipeline,
  type GuardPipelineOptions,
  type GuardRefusal,
  type GuardRun,
  type GuardRunOptions,
  type LedgerToolOptions,
  RefusalStage,
  type ToolCacheOptions,
  type ToolCallOutcome,
} from './pipeline.js';
