/**
 * `hyphae/anthropic`: the guard pipeline for `@anthropic-ai/sdk` — guarded runnable tools for the
 * tool runner, a client middleware that repairs each request's history and runs the run's stop and
 * the budget before it is sent, and the tool answers of a hand-written `messages.create` loop.
 *
 * @module
 */
export { answerToolUses } from './anthropic/answer-tool-uses.js';
export { anthropicGuardMiddleware, guardAnthropicClient } from './anthropic/guard-client.js';
export { guardRunnableTool, guardRunnableTools } from './anthropic/guard-tool.js';
export { type AnthropicStopVerdict, stoppedVerdictOf } from './anthropic/stop-response.js';
export type {
  AnthropicApiRequest,
  AnthropicClientLike,
  AnthropicGuardOptions,
  AnthropicMiddleware,
  AnthropicRunnableToolLike,
  AnthropicToolLike,
  AnthropicToolResultBlock,
  AnthropicToolResultMessage,
  AnthropicToolRunContext,
} from './anthropic/types.js';
export * from './shared/pipeline-api.js';
