/**
 * The guard pipeline's public API, exported by every adapter entry (`hyphae/openai`, `hyphae/ai-sdk`,
 * `hyphae/langchain`, `hyphae/openai-agents`, `hyphae/anthropic`, `hyphae/claude-agent-sdk`,
 * `hyphae/mastra`) so an application needs only its framework's entry.
 */
export { createGuardPipeline, type GuardPipeline, type GuardPipelineOptions } from '../pipeline.js';
export { ModelCallRefusedError, ToolCallFailedError, ToolCallRefusedError } from './errors.js';
export type { GuardRun, GuardRunOptions, ModelCallCheck, ModelCallGate } from './run-types.js';
export type { GuardedToolSpec, LedgerToolOptions, ToolCacheOptions } from './tool-plan.js';
export {
  type ExecuteToolCallOptions,
  type GuardEvent,
  type GuardRefusal,
  RefusalStage,
  type ResultSource,
  type ToolCallFailure,
  type ToolCallInput,
  type ToolCallOutcome,
  type ToolCallRefusal,
  type ToolCallSuccess,
  type ToolExecutionContext,
  type ToolExecutor,
} from './types.js';
