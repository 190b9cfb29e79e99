/**
 * `hyphae/openai`: a guarded Chat Completions tool loop for the `openai` package (bring your own
 * client), and the guard pipeline it runs.
 */
export { runGuardedToolLoop } from './openai/tool-loop.js';
export type {
  GuardedToolLoopOptions,
  GuardedToolLoopResult,
  GuardedToolLoopStop,
  OpenAiAssistantMessage,
  OpenAiChatClient,
  OpenAiChatCompletion,
  OpenAiChatRequest,
  OpenAiMessage,
  OpenAiToolCall,
  OpenAiToolExecutor,
} from './openai/types.js';
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
} from './pipeline.js';
export { ModelCallRefusedError, ToolCallFailedError, ToolCallRefusedError } from './shared/errors.js';
