/**
 * `hyphae/ai-sdk`: guarded tools, a stop condition and a language-model middleware for the Vercel
 * AI SDK (`ai` 7), and the guard pipeline they run.
 */
export { type AiSdkToolLike, guardTools } from './ai-sdk/guard-tools.js';
export {
  type AiSdkCallParams,
  type AiSdkModelInfo,
  type HyphaeLanguageModelMiddleware,
  type HyphaeMiddlewareOptions,
  hyphaeMiddleware,
} from './ai-sdk/middleware.js';
export { type HyphaeStopCondition, hyphaeStopWhen } from './ai-sdk/stop-when.js';
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
