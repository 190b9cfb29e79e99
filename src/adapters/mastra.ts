/**
 * `hyphae/mastra`: the guard pipeline for `@mastra/core` agents — guarded `createTool` tools, a
 * processor that prices each model step and ends a run the guards stopped with the refusal's
 * note, and `withGuards`, which adds both to an agent's settings.
 *
 * @module
 */
export { guardMastraTools } from './mastra/guard-tools.js';
export { hyphaeProcessor } from './mastra/processor.js';
export { stoppedVerdictOf } from './mastra/stop-response.js';
export type {
  GuardMastraToolsOptions,
  HyphaeProcessor,
  HyphaeProcessorOptions,
  MastraGuardedSettings,
  MastraGuards,
  MastraInputStepArgs,
  MastraLLMRequestArgs,
  MastraLLMRequestResult,
  MastraOutputStepArgs,
  MastraRequestContextLike,
  MastraRunScope,
  MastraScopeOptions,
  MastraStopChunk,
  MastraStopResponse,
  MastraStopVerdict,
  MastraToolLike,
  WithGuardsOptions,
} from './mastra/types.js';
export { withGuards } from './mastra/with-guards.js';
export * from './shared/pipeline-api.js';
