/**
 * `hyphae/workflow`: exactly-once side effects inside Vercel Workflow DevKit steps — `ledgeredStep`
 * runs a `"use step"` body through the ledger keyed by the step's `stepId`, `ledgeredStepTool` runs
 * a tool called inside a step (an AI SDK tool during a model turn) once per step and arguments, and
 * both turn a hard block into the engine's non-retryable `FatalError`.
 *
 * @module
 */
export * from './durable/public.js';
export {
  type LedgeredStepOptions,
  ledgeredStep,
  toWorkflowError,
  type WorkflowStepContext,
} from './workflow/ledgered-step.js';
export { ledgeredStepTool, type StepToolSpec } from './workflow/step-tool.js';
