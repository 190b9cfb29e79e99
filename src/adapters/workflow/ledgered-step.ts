/**
 * `ledgeredStep`: the body of a Workflow DevKit `"use step"` function run through the ledger, keyed
 * by the step's `stepId`, so a retry after a throw or a timeout and the re-enqueue of a run whose
 * process died all meet one transition.
 */
import { FatalError, getStepMetadata, getWorkflowMetadata } from 'workflow';
import { GuardError } from '../../core/guard-error.js';
import { checkArguments, recordArgument } from '../../invalid-argument.js';
import type { Ledger } from '../../ledger/types.js';
import {
  checkOperationKey,
  type DurableOperationContext,
  type DurableOperationSpec,
  type DurableRunOptions,
  durableRunOptions,
  isFinalDurableError,
  runDurableOperation,
} from '../durable/run-durable-operation.js';

/** Options of {@link ledgeredStep}. */
export interface LedgeredStepOptions extends Pick<DurableRunOptions, 'args' | 'boundary'> {
  /**
   * The operation id instead of the step's `stepId`: a business key (`charge:<orderId>`) so a new
   * run of the workflow (a re-run of a failed run) meets the first run's record — its stored result
   * or its hard block. Without it each run is its own operation.
   */
  readonly key?: string;
}

/** What a ledgered step's body is given. */
export interface WorkflowStepContext extends DurableOperationContext {
  /** The run the step belongs to. */
  readonly workflowRunId: string;
  /** The step's id: the same on every attempt of the step. */
  readonly stepId: string;
  /** The attempt of the step, from 1. */
  readonly attempt: number;
}

/** The Workflow step running now; throws `not_in_step` outside a `"use step"` function. */
export function currentStep(name: string | undefined): { stepId: string; attempt: number; workflowRunId: string } {
  try {
    const step = getStepMetadata();
    const run = getWorkflowMetadata();
    if (typeof step?.stepId === 'string' && step.stepId !== '' && typeof run?.workflowRunId === 'string') {
      return { stepId: step.stepId, attempt: step.attempt, workflowRunId: run.workflowRunId };
    }
  } catch {
    // Outside a step the metadata getters throw: reported below as one typed error.
  }
  throw new GuardError(
    'not_in_step',
    `\`${name}\` was called outside a Workflow step; call it inside a \`"use step"\` function`,
  );
}

/**
 * The engine's non-retryable failure for an error of a ledgered step: a hard block becomes a
 * `FatalError` (the step is not retried, the run fails visibly); anything else is returned as is.
 */
export function toWorkflowError(error: unknown): unknown {
  if (!isFinalDurableError(error)) return error;
  const { code, message } = error as { code: string; message: string };
  return Object.assign(new FatalError(`${code}: ${message}`), { cause: error, code });
}

/**
 * Run `body` inside the current Workflow step through `ledger`, once per step whatever the engine
 * retries or re-enqueues: call it inside a `"use step"` function. The step's `stepId` is the dispatch
 * id (pass `context.operationId` to the provider as its idempotency key). A step whose earlier
 * attempt died mid-effect fails with a `FatalError` (code `ledger_hard_block`), which the engine does
 * not retry: the run fails and the transition waits for an operator.
 *
 * @example
 * async function chargeOrder(orderId: string, cents: number) {
 *   'use step';
 *   return ledgeredStep(ledger, { name: 'charge', sideEffectClass: 'payment' },
 *     ({ operationId }) => payments.charge({ orderId, cents, idempotencyKey: operationId }),
 *     { args: { orderId, cents } });
 * }
 */
export async function ledgeredStep<R>(
  ledger: Ledger,
  spec: DurableOperationSpec,
  body: (context: WorkflowStepContext) => R | Promise<R>,
  options: LedgeredStepOptions = {},
): Promise<Awaited<R>> {
  recordArgument('ledgeredStep', 'ledger', ledger, ['tool']);
  checkArguments('ledgeredStep', { spec, options });
  checkOperationKey(options.key, 'step');
  const { stepId, attempt, workflowRunId } = currentStep(spec?.name);
  const id = options.key ?? stepId;
  try {
    return await runDurableOperation(
      ledger,
      spec,
      { id, scope: { runId: options.key === undefined ? workflowRunId : id } },
      (context) => body({ ...context, workflowRunId, stepId, attempt }),
      durableRunOptions(options, undefined),
    );
  } catch (error) {
    throw toWorkflowError(error);
  }
}
