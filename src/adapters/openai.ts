/**
 * `hyphae/openai`: a guarded Chat Completions tool loop for the `openai` package (bring your own
 * client), and the guard pipeline it runs.
 *
 * @module
 */
export { runGuardedToolLoop } from './openai/tool-loop.js';
export type {
  GuardedToolLoopOptions,
  GuardedToolLoopResult,
  GuardedToolLoopStop,
  OpenAiAssistantMessage,
  OpenAiChatClient,
  OpenAiChatCompletion,
  OpenAiChatCompletionChunk,
  OpenAiChatRequest,
  OpenAiFunctionToolCall,
  OpenAiLoopMessage,
  OpenAiMessage,
  OpenAiToolCall,
  OpenAiToolExecutor,
} from './openai/types.js';
export * from './shared/pipeline-api.js';
