/**
 * Fuses: permission, loop, budget, judge and canary, the fuse box and the combinators.
 *
 * This barrel lists, as explicit named exports, what the root `src/index.ts` should re-export.
 */

export {
  type BudgetBooking,
  type BudgetFuse,
  type BudgetRun,
  type BudgetTotals,
  budgetFuse,
  type ModelCallDecision,
  type ModelReservation,
} from './budget.js';
export type { BudgetFuseOptions, ModelPrice } from './budget-options.js';
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
} from './canary.js';
export { allOf, anyOf, type ExceptCondition, except } from './combinators.js';
export { assertAllowed, FuseConfigError, FuseLogError, FuseTrippedError } from './errors.js';
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
} from './events.js';
export { createFuseBox, type FuseBox, type FuseBoxOptions } from './fuse-box.js';
export {
  type JudgeCheck,
  type JudgeCheckOutcome,
  type JudgeGate,
  type JudgeGateOptions,
  type JudgeReport,
  type JudgeVerdict,
  judgeGate,
} from './judge.js';
export { type LoopFuseOptions, loopFuse } from './loop.js';
export {
  type ModelCallFacts,
  type ModelCallFault,
  type ModelCallInput,
  type ModelCallRequest,
  measureModelCall,
} from './model-call.js';
export { type PermissionFuseOptions, permissionFuse } from './permission.js';
export type { FuseRun, ModelUsageOptions, ToolOutcome, ToolResult } from './run-box.js';
export {
  approximateTokenCounter,
  defaultTokenCounter,
  OpenAiEncoding,
  openAiEncodingFor,
  preloadTokenizer,
  type TokenCounter,
} from './token-counter.js';
export {
  type FuseStats,
  type ToolCall,
  type ToolCallFacts,
  type ToolFuse,
  type ToolFuseRun,
  toolCallSignature,
} from './tool-fuse.js';
export { readUsage, type UsageCounts, UsageFormat, type UsageReading, UsageStatus } from './usage.js';
export {
  ALLOWED,
  type FuseAllowance,
  FuseCode,
  type FuseEvidence,
  FuseName,
  type FuseRefusal,
  type FuseVerdict,
} from './verdict.js';
