/**
 * What every durable-engine entry (`hyphae/dbos`, `hyphae/restate`, `hyphae/workflow`) exports of the
 * shared core: run any operation of an engine through the ledger, and tell a final error.
 */
export {
  type DurableBoundary,
  type DurableOperation,
  type DurableOperationContext,
  type DurableOperationSpec,
  type DurableRunOptions,
  isFinalDurableError,
  runDurableOperation,
} from './run-durable-operation.js';
