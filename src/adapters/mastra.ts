/**
 * `hyphae/mastra`: the guard pipeline for `@mastra/core` agents — guarded `createTool` tools, a
 * processor that prices each model step and ends a run the guards stopped, and `withGuards`,
 * which adds both to an agent's settings.
 *
 * @module
 */
export { guardMastraTools } from './mastra/guard-tools.js';
export { hyphaeProcessor, stoppedVerdictOf } from './mastra/processor.js';
export type {
  GuardMastraToolsOptions,
  HyphaeProcessor,
  HyphaeProcessorOptions,
  MastraGuardedSettings,
  MastraGuards,
  MastraInputStepArgs,
  MastraLLMRequestArgs,
  MastraOutputStepArgs,
  MastraRequestContextLike,
  MastraRunScope,
  MastraScopeOptions,
  MastraStopVerdict,
  MastraToolLike,
  MastraTripwireOptions,
  WithGuardsOptions,
} from './mastra/types.js';
export { withGuards } from './mastra/with-guards.js';
export * from './shared/pipeline-api.js';
