/**
 * The guard pipeline's public API, exported by every adapter entry (`hyphae/openai`, `hyphae/ai-sdk`,
 * `hyphae/langchain`, `hyphae/openai-agents`) so an application needs only its framework's entry.
 */
export {
  createGuardPipeline,
  type ExecuteToolCallOptions,
  type GuardEvent,
  type GuardedToolSpec,
  type GuardPipeline,
  type GuardPipelineOptions,
  type GuardRefusal,
  type GuardRun,
  type GuardRunOptions,
  type LedgerToolOptions,
  type ModelCallCheck,
  type ModelCallGate,
  RefusalStage,
  type ResultSource,
  type ToolCacheOptions,
  type ToolCallFailure,
  type ToolCallInput,
  type ToolCallOutcome,
  type ToolCallRefusal,
  type ToolCallSuccess,
  type ToolExecutionContext,
  type ToolExecutor,
} from '../pipeline.js';
export { ModelCallRefusedError, ToolCallFailedError, ToolCallRefusedError } from './errors.js';
