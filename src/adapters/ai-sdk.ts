/**
 * `hyphae/ai-sdk`: guarded tools, a stop condition and a language-model middleware for the Vercel
 * AI SDK (`ai` 7), and the guard pipeline they run.
 *
 * @module
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
export { type AiSdkGuardedSettings, type WithGuardsOptions, withGuards } from './ai-sdk/with-guards.js';
export * from './shared/pipeline-api.js';
