/**
 * `hyphae`: the transition ledger, fuses, tool boundaries, context guards and the config loader,
 * with the errors they raise and the types they take. Drivers and adapters are entries of their own
 * (`hyphae/sqlite`, `hyphae/redis`, `hyphae/postgres`, `hyphae/ai-sdk`, ...).
 *
 * @module
 */
export {
  type AnyBoundedTool,
  type BoundedOptions,
  type BoundedResult,
  type BoundedTool,
  bounded,
  type CheckedArgs,
  isBoundedTool,
  type SchemaInput,
} from './boundary/bounded.js';
export type { ChatMessage, ChatToolCall, LlmAssistantMessage, ToolCallRequest, ToolMessage } from './boundary/chat.js';
export {
  type CompiledSchema,
  compileSchema,
  type SchemaKind,
  type SchemaOutput,
  type ToolSchema,
} from './boundary/compile-schema.js';
export { createToolRegistry, type ToolRegistry, type ToolRegistryOptions } from './boundary/create-tool-registry.js';
export {
  createToolRunner,
  type RunnerCallOptions,
  type ToolRunner,
  type ToolRunnerOptions,
} from './boundary/create-tool-runner.js';
export {
  type ExhaustedBudget,
  type ExhaustedContext,
  SchemaDefinitionError,
  type SchemaDefinitionErrorOptions,
  ToolBoundaryError,
  type ToolBoundaryErrorInit,
  ToolBoundaryExhaustedError,
  ToolBoundaryViolation,
  ToolDefinitionError,
  ToolRegistryError,
  type ToolRegistryReason,
  ValidationError,
} from './boundary/errors.js';
export { fieldSpecToJsonSchema, type JsonSchemaObject } from './boundary/field-spec.js';
export type {
  ArrayField,
  BooleanField,
  FieldBase,
  FieldDef,
  FieldSpec,
  FieldType,
  InferField,
  InferFieldSpec,
  NumericField,
  ObjectField,
  StringField,
} from './boundary/field-spec-types.js';
export {
  IssueCode,
  type PathSegment,
  toJsonPointer,
  type ValidationIssue,
  type ValidationResult,
} from './boundary/issues.js';
export type {
  FormatToolResult,
  InvokeLlm,
  LlmRequest,
  LlmRetryOptions,
  LlmTurnResult,
  ToolCallResult,
} from './boundary/llm-turn.js';
export type { ScopeOptions } from './boundary/scope-checks.js';
export {
  isPathInside,
  isSubpath,
  resolveScopedPath,
  type ScopedPathRefusal,
  type ScopedPathResult,
} from './boundary/scoped-path.js';
export {
  isStandardSchema,
  type StandardInput,
  type StandardIssue,
  type StandardOutput,
  type StandardPathSegment,
  type StandardProps,
  type StandardResult,
  type StandardSchemaV1,
} from './boundary/standard-schema.js';
export { type ParseToolArgs, parseJsonArgs, type ToolLookup } from './boundary/tool-execution.js';
export { assertValid, validate, validateAsync } from './boundary/validate.js';
export type { ConfiguredTask, HyphaeConfig, Instrumented } from './config/create-config.js';
export { ConfigError, type ConfigIssue } from './config/errors.js';
export { type ConfigEvent, type ConfigSource, type LoadConfigOptions, loadConfig } from './config/load-config.js';
export {
  type ConfigEnv,
  type ConfigValidation,
  DEFAULT_MAX_CONFIG_BYTES,
  type ParseConfigOptions,
  parseConfig,
  validateConfig,
} from './config/parse-config.js';
export type { PrepareMessagesEvent } from './config/prepare-messages.js';
export type { ConfigRun, ConfigRunScope } from './config/run-context.js';
export { configJsonSchema, DEFAULT_LEASE_TTL_MS } from './config/schema/config-node.js';
export type { JsonSchema } from './config/schema/nodes.js';
export type {
  ActionLedgerSettings,
  BoundedSettings,
  ConfigProfile,
  ConfigSettings,
  FusesSettings,
  HistoryGuardSettings,
  LedgerCoverage,
  PriceSettings,
  ProtectSettings,
  ReceiptsSettings,
  RegistrySettings,
  RunnerSettings,
  RunSnapshotsSettings,
  SecretSource,
  StoreSettings,
  TaskLedgerSettings,
  TaskSettings,
  ToolSettings,
  TranscriptSettings,
  TransitionSettings,
  ValueSource,
} from './config/types.js';
export type { ConfiguredTool, ToolBody, ToolOverrides } from './config/wrap-tool.js';
export {
  CacheKeyError,
  HistoryDropError,
  type HistoryDropFinding,
  HistoryDuplicateError,
  type HistoryLimit,
  HistoryTruncatedError,
  SnapshotNotFoundError,
  SnapshotStorageError,
  TranscriptError,
} from './context/errors.js';
export { compareHistories, type DropReport } from './context/history/check-drops.js';
export {
  createHistoryGuard,
  type DuplicateTurn,
  type HistoryEvent,
  type HistoryGuard,
  type HistoryGuardOptions,
  type HistoryReport,
} from './context/history/history-guard.js';
export { turnFingerprint } from './context/history/turn-fingerprint.js';
export {
  type EntitySelector,
  type ProtectedTool,
  type ProtectOptions,
  protect,
  protectKey,
} from './context/protect.js';
export { createSession, currentSession, type Session, type SessionOptions, withSession } from './context/session.js';
export { mergeState } from './context/snapshots/merge-state.js';
export {
  createRunSnapshots,
  type RunHandle,
  type RunOptions,
  type RunSnapshots,
  type RunSnapshotsOptions,
  type SnapshotEvent,
} from './context/snapshots/run-snapshots.js';
export {
  charTokenCounter,
  countHistoryTokens,
  createCharTokenCounter,
  createGptTokenCounter,
  type GptTokenCounterOptions,
  type MessageTokenCounter,
  messageText,
  tokenCounterFromFunction,
} from './context/tokens.js';
export { fromAiSdkMessages, toAiSdkMessages } from './context/transcript/convert-ai-sdk.js';
export { fromAnthropicMessages, toAnthropicMessages } from './context/transcript/convert-anthropic.js';
export { detectTranscriptFormat } from './context/transcript/detect-format.js';
export { type RepairTranscriptOptions, repairTranscript, type TranscriptRepair } from './context/transcript/repair.js';
export type { UnansweredPolicy } from './context/transcript/repair-plan.js';
export {
  type AiSdkMessage,
  type AiSdkToolCallPart,
  type AiSdkToolResultOutput,
  type AiSdkToolResultPart,
  type AnthropicMessage,
  type AnthropicToolResultBlock,
  type AnthropicToolUseBlock,
  type ChatAssistantMessage,
  type ChatSystemMessage,
  type ChatToolMessage,
  type ChatUserMessage,
  type ContentPart,
  type TranscriptChange,
  TranscriptChangeKind,
  type TranscriptFormat,
  type TranscriptIssue,
  TranscriptIssueCode,
  type TranscriptMessage,
  type TranscriptToolCall,
  type TranscriptValidation,
} from './context/transcript/types.js';
export { assertTranscript, type ValidateTranscriptOptions, validateTranscript } from './context/transcript/validate.js';
export type { CacheStats } from './context/ttl-cache.js';
export { canonicalJson, MAX_JSON_DEPTH } from './core/canonical-json.js';
export { type Clock, createManualClock, type ManualClock, systemClock } from './core/clock.js';
export { fingerprint, sha256Hex } from './core/fingerprint.js';
export type { JsonValue } from './core/json.js';
export {
  CanonicalJsonError,
  GuardError,
  type GuardErrorOptions,
  InvalidOptionError,
  LedgerAlreadyResolvedError,
  LedgerError,
  LedgerFencedError,
  LedgerHardBlockError,
  LedgerIdentityConflictError,
  LedgerMissingError,
  LedgerPollTimeoutError,
  LedgerReleaseRefusedError,
  LedgerSoftBlockError,
  LedgerStorageCorruptError,
  LedgerStorageUnavailableError,
  LedgerStorageUnsafeError,
  LedgerWorkerAliveError,
  MissingPeerDependencyError,
  ReceiptKeyError,
  ReceiptSinkCorruptError,
  ReceiptSinkUnavailableError,
  ToolCapabilityDeclarationError,
} from './errors.js';
export {
  type BudgetBooking,
  type BudgetFuse,
  type BudgetRun,
  type BudgetTotals,
  budgetFuse,
  type ModelCallDecision,
  type ModelReservation,
} from './fuses/budget.js';
export type { BudgetFuseOptions, ModelPrice } from './fuses/budget-options.js';
export {
  CanaryArm,
  type CanaryArmSummary,
  CanaryDecision,
  type CanaryDecisionEvent,
  type CanaryFuse,
  type CanaryFuseOptions,
  type CanaryGates,
  type CanaryRecordResult,
  type CanarySample,
  canaryFuse,
} from './fuses/canary.js';
export { allOf, anyOf, type ExceptCondition, except } from './fuses/combinators.js';
export { assertAllowed, FuseConfigError, FuseLogError, FuseTrippedError } from './fuses/errors.js';
export {
  type FuseEvent,
  FuseEventType,
  type ModelCallEvent,
  type ModelUsageEvent,
  type ReleaseEvent,
  type RunLifecycleEvent,
  type ToolCallEvent,
  type ToolCallRecord,
  type ToolResultEvent,
  type TurnEvent,
} from './fuses/events.js';
export { createFuseBox, type FuseBox, type FuseBoxOptions } from './fuses/fuse-box.js';
export {
  type JudgeCheck,
  type JudgeCheckOutcome,
  type JudgeGate,
  type JudgeGateOptions,
  type JudgeReport,
  type JudgeVerdict,
  judgeGate,
} from './fuses/judge.js';
export { type LoopFuseOptions, loopFuse } from './fuses/loop.js';
export {
  type ModelCallFacts,
  type ModelCallFault,
  type ModelCallInput,
  type ModelCallRequest,
  measureModelCall,
} from './fuses/model-call.js';
export { type PermissionFuseOptions, permissionFuse } from './fuses/permission.js';
export type { FuseRun, ModelUsageOptions, ToolOutcome, ToolResult } from './fuses/run-box.js';
export {
  approximateTokenCounter,
  defaultTokenCounter,
  OpenAiEncoding,
  openAiEncodingFor,
  preloadTokenizer,
  type TokenCounter,
} from './fuses/token-counter.js';
export {
  type FuseStats,
  type ToolCall,
  type ToolCallFacts,
  type ToolFuse,
  type ToolFuseRun,
  toolCallSignature,
} from './fuses/tool-fuse.js';
export { readUsage, type UsageCounts, UsageFormat, type UsageReading, UsageStatus } from './fuses/usage.js';
export {
  ALLOWED,
  type FuseAllowance,
  FuseCode,
  type FuseEvidence,
  FuseName,
  type FuseRefusal,
  type FuseVerdict,
} from './fuses/verdict.js';
export { InvalidArgumentError } from './invalid-argument.js';
export {
  markCrossed,
  markMaybeCrossed,
  recordExternalOperation,
  renewLease,
  sideEffect,
} from './ledger/boundary-markers.js';
export { LedgerDecisionDeniedError } from './ledger/caller-verdicts.js';
export { createLedger } from './ledger/create-ledger.js';
export { decisionDigest, EffectState, effectStateOf } from './ledger/decision.js';
export {
  GuardRecordError,
  type GuardRecords,
  type HeldCallApproval,
  type HeldCallInput,
  type HeldCallSpend,
  type PolicyRecord,
  type PolicyRecordInput,
} from './ledger/guard-records.js';
export {
  createReceiptWriter,
  type ReceiptWriter,
  type ReceiptWriterOptions,
  type WriteResult,
} from './ledger/receipts/receipt-writer.js';
export { type OwedReceipt, type RecordEvent, TERMINAL_OUTCOMES } from './ledger/receipts/record-receipts.js';
export {
  createEd25519Signer,
  createEd25519Verifier,
  createHmacSigner,
  createHmacVerifier,
  createReceiptSigner,
  type KeyInput,
  MIN_HMAC_KEY_BYTES,
  ReceiptAlgorithm,
  type ReceiptKey,
  type ReceiptKeyObject,
  type ReceiptKeySettings,
  type ReceiptSigner,
} from './ledger/receipts/signers.js';
export {
  type BrokenLink,
  BrokenReason,
  type ReceiptAnchor,
  type ReceiptSource,
  type VerifyProgress,
  type VerifyReceiptsOptions,
  type VerifyReceiptsResult,
  verifyReceipts,
} from './ledger/receipts/verify-receipts.js';
export {
  type GateAttempt,
  type GateDecision,
  isExpired,
  resolveGate,
  resolveReadGate,
  resolveSideEffectGate,
} from './ledger/resolve-gate.js';
export { resolveSideEffectClass } from './ledger/resolve-side-effect-class.js';
export {
  allowedCapabilities,
  type CapabilityMechanisms,
  derivedCapability,
  ToolCapability,
} from './ledger/tool-capability.js';
export {
  argsFingerprint,
  TRANSITION_KEY_SCHEMA,
  type TransitionKeyInput,
  ticketKey,
  transitionKey,
} from './ledger/transition-key.js';
export type {
  ArgsDriftPolicy,
  AuditInput,
  CallOptions,
  Ledger,
  LedgerCallEvent,
  LedgerCallInfo,
  LedgeredFunction,
  LedgerLogger,
  LedgerOptions,
  MarkWorkerDeadInput,
  ReconcileRequest,
  Reconciler,
  ReconcilerObject,
  ReconcileVerdict,
  ReleaseInput,
  SweepReceiptsOptions,
  SweepReceiptsReport,
  TaskCallOptions,
  TaskSpec,
  ToolBoundary,
  ToolIdentity,
  ToolSpec,
  WaitOptions,
  WorkerDeathTarget,
} from './ledger/types.js';
export {
  type DeathSignalPolicy,
  hasWorkerDeathEvidence,
} from './ledger/worker-death.js';
export { MAX_DURATION_MS } from './option-checks.js';
export {
  CheckVerdict,
  type DecisionVerdict,
  type TransitionDecision,
} from './records/decision.js';
export {
  Boundary,
  CLASS_DEFAULTS,
  CLASS_PROPERTIES,
  type ClassDefaults,
  type ClassProperties,
  CONSEQUENTIAL_CLASSES,
  Gate,
  Outcome,
  RetryPermission,
  SIDE_EFFECT_CLASS_ALIASES,
  SideEffectClass,
  Spendability,
} from './records/envelope.js';
export type {
  LedgerScope,
  OperatorResolution,
  RecordedError,
  RecordKind,
  TransitionRecord,
  WorkerDeathSignal,
} from './records/transition-record.js';
export {
  createJsonlReceiptSink,
  type JsonlReceiptSink,
  type JsonlReceiptSinkOptions,
} from './storage/jsonl/jsonl-sink.js';
export type {
  CreateResult,
  LedgerIdentity,
  LedgerStorage,
  ListPage,
  ListQuery,
  StorageCapabilities,
  StorageHazard,
} from './storage/ledger-storage.js';
export { createMemoryStorage } from './storage/memory.js';
export { createMemoryReceiptSink, type MemoryReceiptSink } from './storage/memory-receipt-sink.js';
export { createMemorySnapshotStorage } from './storage/memory-snapshots.js';
export {
  isReceipt,
  RECEIPT_SCHEMA,
  type Receipt,
  ReceiptActionKind,
  type ReceiptDraft,
  type ReceiptError,
  type ReceiptOperator,
  ReceiptOutcome,
  receiptHash,
  type UnsignedReceipt,
} from './storage/receipt.js';
export type { AppendResult, ReceiptSink } from './storage/receipt-sink.js';
export {
  type RunSnapshot,
  type RunState,
  RunStatus,
  type SnapshotInput,
  type SnapshotStorage,
} from './storage/snapshot-storage.js';
