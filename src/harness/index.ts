/**
 * `hyphae/harness`: an agent that proposes RFC 6902 changes to an application-owned JSON
 * document, validated and bounded, never applied. Re-exports only.
 *
 * @module
 */

export { MissingPeerDependencyError } from '../errors.js';
export {
  type ApprovedAsset,
  ASSET_PROVIDER_NAME_PATTERN,
  type Asset,
  type AssetPreviewContext,
  type AssetProvenance,
  type AssetProvider,
  type AssetSearchContext,
  SEARCH_ASSETS_PREFIX,
} from './assets/asset-provider.js';
export { ASSET_REF_PATTERN } from './assets/asset-registry.js';
export {
  type CompactSupersededResultsOptions,
  compactSupersededResults,
} from './context-policy/compact-superseded-results.js';
export type { CompactToolResultsOptions } from './context-policy/compact-tool-results.js';
export { compactToolResults } from './context-policy/compact-tool-results.js';
export type { ContextPolicyInfo, ModelContextPolicy } from './context-policy/context-policy.js';
export {
  createPatchHarness,
  type PatchHarness,
  type PatchHarnessOptions,
  type VisualReviewOptions,
} from './create-patch-harness.js';
export {
  type DesignCheck,
  type DesignIssue,
  DesignRefusal,
  DesignValidationError,
} from './design/design-errors.js';
export {
  type CompiledDesignSpec,
  compileDesignSpec,
  type DesignIssueInput,
  type DesignSpec,
} from './design/design-spec.js';
export { firstDifference } from './design/first-difference.js';
export { type ZodDesignSpecOptions, type ZodSchemaLike, zodDesignSpec } from './design/zod-design-spec.js';
export {
  ContextPolicyError,
  HarnessConfigError,
  HarnessInputError,
  RunLimit,
  RunLimitExceeded,
  RunLimitExceededError,
  type RunLimitExceededInit,
  ToolRaisedError,
} from './errors.js';
export type {
  EventInput,
  HarnessEvent,
  ModelCallFinishedEvent,
  ModelCallStartedEvent,
  RunFinishedEvent,
  RunStartedEvent,
  ToolCallFinishedEvent,
  ToolCallStartedEvent,
  ValidationFinishedEvent,
  ValidationStartedEvent,
} from './events.js';
export {
  applyJsonPatch,
  DEFAULT_JSON_PATCH_LIMITS,
  formatJsonPointer,
  getByPointer,
  JSON_PATCH_ERROR_CODE,
  JsonPatchError,
  type JsonPatchErrorCode,
  type JsonPatchErrorInit,
  type JsonPatchLimits,
  type JsonPatchOperation,
  type JsonPatchOperationName,
  type JsonValue,
  jsonEquals,
  parseJsonPointer,
} from './json-patch/index.js';
export { DEFAULT_HARNESS_LIMITS, type HarnessLimits, type ResolvedLimits } from './limits.js';
export {
  type AiSdkLanguageModel,
  type AiSdkMainModelOptions,
  type AiSdkModelOptions,
  type AiSdkModule,
  type AiSdkOutputMode,
  createAiSdkMainModel,
  createAiSdkVisionModel,
} from './models/ai-sdk.js';
export { mapAiSdkError } from './models/ai-sdk-errors.js';
export {
  ModelAuthError,
  ModelContextLengthError,
  ModelErrorKind,
  ModelInvalidResponseError,
  ModelNetworkError,
  ModelProviderError,
  type ModelProviderErrorInit,
  ModelRateLimitError,
} from './models/model-errors.js';
export {
  type ArtifactMetadata,
  type AssistantMessage,
  type MainModel,
  ModelCallPurpose,
  type ModelMessage,
  type ModelRequest,
  type ModelResponse,
  type ModelResponseFormat,
  type ModelToolCall,
  type ModelToolDefinition,
  type ModelUsage,
  type ProviderMetadata,
  type RenderedArtifact,
  type SystemMessage,
  type ToolResultMessage,
  type UserMessage,
  type VisionImage,
  type VisionModel,
  type VisionPurpose,
  type VisionResponse,
  type VisionReviewRequest,
} from './models/types.js';
export type {
  CandidateContext,
  CandidatePhase,
  CandidatePolicy,
  CandidateVerdict,
} from './run/candidate-policy.js';
export { FINAL_RESPONSE_FORMAT, FINAL_RESPONSE_SCHEMA, SYSTEM_CONTRACT } from './run/contract.js';
export type { FinalAnswer } from './run/final-answer.js';
export type {
  ArtifactLoadContext,
  EagerInputArtifact,
  InputArtifact,
  InputArtifactDescriptor,
  LazyInputArtifact,
} from './run/input-artifacts.js';
export type { PatchRunOptions } from './run/run-input.js';
export type { RunResult } from './run/run-loop.js';
export type { HistoryMessage } from './run/run-prompt.js';
export {
  type AgentTool,
  type ModelViewContext,
  type ToolContext,
  ToolFailureMode,
  type ToolOutcome,
  type ToolOutcomeError,
  ToolOutcomeStatus,
} from './tools/agent-tool.js';
export { COMMIT_RENDER } from './tools/commit-render.js';
export { TOOL_NAME_PATTERN } from './tools/compile-tools.js';
export { EVIDENCE_REF_PATTERN } from './tools/evidence-store.js';
export { INSPECT_ASSET } from './tools/inspect-asset.js';
export { INSPECT_VISUAL } from './tools/inspect-visual.js';
export { RENDER_DESIGN } from './tools/render-design.js';
export { EvidenceRetrievalError, RETRIEVE_EVIDENCE } from './tools/retrieve-evidence.js';
export { ToolCallError, type ToolCallErrorStatus } from './tools/tool-call-error.js';
export type { ToolCallInfo, ToolMiddleware, ToolMiddlewareDecision } from './tools/tool-middleware.js';
export type {
  ModelCallInputTrace,
  ModelCallTrace,
  ModelCallTraceData,
  StepKind,
  StepTrace,
  StepTraceData,
  TraceRedactor,
  ValidationTrace,
  VisionImageTrace,
} from './traces.js';
export { EMPTY_USAGE, type HarnessUsage, type PurposeUsage } from './usage.js';
export { RENDER_REF_PATTERN } from './visual/render-store.js';
export { createRenderer, type RenderContext, type Renderer, type RenderFunction } from './visual/renderer.js';
