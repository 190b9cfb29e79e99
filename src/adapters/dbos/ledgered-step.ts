/**
 * `ledgeredStep`: the body of a DBOS step run through the ledger, keyed by the step's workflow id
 * and step id, so a DBOS retry, a recovery after a crash and a `timeoutMS` retry that starts while
 * the first attempt still runs all meet one transition.
 */
import { DBOS } from '@dbos-inc/dbos-sdk';
import { GuardError } from '../../core/guard-error.js';
import { checkArguments, InvalidArgumentError, recordArgument, stringArgument } from '../../invalid-argument.js';
import type { Ledger } from '../../ledger/types.js';
import {
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
   * Key the step by the workflow it was forked from (`DBOS.forkWorkflow`), so a fork re-running a
   * step meets the original's record: its stored result, or its hard block. Default `true`; it
   * reads the workflow's status once per workflow and process.
   */
  readonly followForks?: boolean;
}

/** What a ledgered step's body is given. */
export interface DbosStepContext extends DurableOperationContext {
  readonly workflowID: string;
  readonly stepID: number;
}

const FORK_ROOTS_KEPT = 1024;
/** Workflow id → the id of the workflow it was first forked from (itself when not a fork). */
const forkRoots = new Map<string, string>();

async function rootWorkflowOf(workflowID: string): Promise<string> {
  const known = forkRoots.get(workflowID);
  if (known !== undefined) return known;
  let root = workflowID;
  // A fork of a fork names its direct parent: walk up to the workflow that first ran the step.
  for (let hops = 0; hops < 64; hops++) {
    const status = await DBOS.getWorkflowStatus(root);
    const parent = status?.forkedFrom;
    if (parent === undefined || parent === null || parent === root) break;
    root = parent;
  }
  if (forkRoots.size >= FORK_ROOTS_KEPT) forkRoots.delete(forkRoots.keys().next().value as string);
  forkRoots.set(workflowID, root);
  return root;
}

/** The DBOS step running now: its workflow, its step id and the workflow it was first forked from. */
export interface CurrentStep {
  readonly workflowID: string;
  readonly stepID: number;
  readonly rootWorkflowID: string;
}

/** The step running now; throws `not_in_step` outside a DBOS step. */
export async function currentStepOf(name: string | undefined, followForks: boolean): Promise<CurrentStep> {
  const workflowID = DBOS.workflowID;
  const stepID = DBOS.stepID;
  if (workflowID === undefined || stepID === undefined || !DBOS.isInStep()) {
    throw new GuardError(
      'not_in_step',
      `\`${name}\` was called outside a DBOS step; call it inside \`DBOS.runStep\` or a registered step`,
    );
  }
  return { workflowID, stepID, rootWorkflowID: followForks ? await rootWorkflowOf(workflowID) : workflowID };
}

/** The operation id of a DBOS step: `<workflowID>#<stepID>`. */
export function dbosOperationId(workflowID: string, stepID: number): string {
  stringArgument('dbosOperationId', 'workflowID', workflowID);
  if (!Number.isInteger(stepID)) throw new InvalidArgumentError('dbosOperationId', 'stepID', 'must be an integer');
  return `${workflowID}#${stepID}`;
}

/**
 * Run `body` inside the current DBOS step through `ledger`, once per step whatever DBOS retries:
 * call it inside `DBOS.runStep` or a `DBOS.registerStep` function. The step's operation id
 * (`<workflowID>#<stepID>`) is the dispatch id; pass `context.operationId` to the provider as its
 * idempotency key. A step whose earlier attempt died mid-effect raises `LedgerHardBlockError`: a
 * step error DBOS records, which fails the workflow (give `retriesAllowed` steps
 * {@link dbosShouldRetry}, so DBOS does not retry it).
 *
 * @example
 * const charge = DBOS.registerWorkflow(async (orderId: string, cents: number) =>
 *   DBOS.runStep(() => ledgeredStep(ledger, { name: 'charge', sideEffectClass: 'payment' },
 *     ({ operationId }) => payments.charge({ orderId, cents, idempotencyKey: operationId }),
 *     { args: { orderId, cents } }), { name: 'charge' }));
 */
export async function ledgeredStep<R>(
  ledger: Ledger,
  spec: DurableOperationSpec,
  body: (context: DbosStepContext) => R | Promise<R>,
  options: LedgeredStepOptions = {},
): Promise<Awaited<R>> {
  recordArgument('ledgeredStep', 'ledger', ledger, ['tool']);
  checkArguments('ledgeredStep', { spec, options });
  const { workflowID, stepID, rootWorkflowID: root } = await currentStepOf(spec?.name, options.followForks !== false);
  const signal = DBOS.stepStatus?.timeoutSignal;
  return runDurableOperation(
    ledger,
    spec,
    { id: dbosOperationId(root, stepID), scope: { runId: root } },
    (context) => body({ ...context, workflowID, stepID }),
    durableRunOptions(options, signal),
  );
}

/**
 * A DBOS `shouldRetry` for steps with `retriesAllowed`: never retry a hard block (it stays blocked
 * until an operator releases it); retry anything else.
 */
export function dbosShouldRetry(error: unknown): boolean {
  return !isFinalDurableError(error);
}
