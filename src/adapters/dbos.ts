/**
 * `hyphae/dbos`: exactly-once side effects inside DBOS Transact steps — `ledgeredStep` runs a
 * step's body through the ledger keyed by the step's workflow id and step id, and
 * `dbosShouldRetry` keeps DBOS from retrying a step the ledger hard-blocked.
 *
 * @module
 */

export { dbosOwnerId, markExecutorDead } from './dbos/executor-death.js';
export {
  type CurrentStep,
  type DbosStepContext,
  dbosOperationId,
  dbosShouldRetry,
  type LedgeredStepOptions,
  ledgeredStep,
} from './dbos/ledgered-step.js';
export { ledgeredStepTool, type StepToolSpec } from './dbos/step-tool.js';
export * from './durable/public.js';
