/**
 * The engine-neutral core of the durable-engine adapters: one operation of a durable engine (a
 * DBOS step, a Workflow step, a Restate `ctx.run`, a Temporal activity) run through the ledger.
 *
 * An engine journals a step's result only when the step returns, so a step killed or timed out
 * after its side effect runs again. The ledger closes that window down to the external call:
 *
 *   attempt 1: claim(op) as maybe_crossed ─► provider call ─► crossed+COMPLETED ─► return
 *   attempt 2 (retry, replay, recovery): claim(op) meets the record ─► RETURN its result
 *   attempt 2 while attempt 1 still runs (a timeout retry): POLL until attempt 1 records ─► RETURN
 *   attempt 1 killed after maybe_crossed: attempt 2 meets an expired claim ─► hard block, never re-run
 */
import { GuardError } from '../../core/guard-error.js';
import { LedgerHardBlockError } from '../../errors.js';
import { checkArguments, recordArgument } from '../../invalid-argument.js';
import type { Ledger, ToolSpec } from '../../ledger/types.js';
import type { LedgerScope } from '../../records/transition-record.js';

/** The operation of a durable engine a body runs as: the same id on every retry, replay and recovery. */
export interface DurableOperation {
  /** The engine's stable operation id (DBOS `workflowID` + step id, Temporal `workflowId` + `activityId`). */
  readonly id: string;
  /** The ledger scope of the operation (the workflow as its run). */
  readonly scope?: LedgerScope;
}

/** What a durable body is given. */
export interface DurableOperationContext {
  /** The operation id: pass it to the provider as its idempotency key where one is accepted. */
  readonly operationId: string;
  /** Fires when the engine gives up on this attempt (a step timeout), when the engine says so. */
  readonly signal: AbortSignal | undefined;
}

/**
 * Where the side-effect boundary sits: `'body'` (default) writes the claim itself `maybe_crossed`,
 * so any failure of the body is an effect that may have happened and a step costs two store writes
 * (claim, complete); `'marked'` leaves it to the body, which wraps its provider call in
 * `sideEffect()` (a third write, before the call, for a body whose failures before the call are
 * worth retrying).
 */
export type DurableBoundary = 'body' | 'marked';

/** Options of {@link runDurableOperation}. */
export interface DurableRunOptions {
  /** The arguments of the effect, fingerprinted with the operation (a changed argument is a conflict). */
  readonly args?: Readonly<Record<string, unknown>>;
  /** Where the side-effect boundary sits (default `'body'`: before the body runs). */
  readonly boundary?: DurableBoundary;
  /** The engine's abort signal of this attempt; the call rejects when it fires, its claim stays held. */
  readonly signal?: AbortSignal;
}

/** The core's options out of an engine adapter's: its `args` and `boundary`, and the attempt's signal. */
export function durableRunOptions(
  options: Pick<DurableRunOptions, 'args' | 'boundary'>,
  signal: AbortSignal | undefined,
): DurableRunOptions {
  return {
    ...(options.args === undefined ? {} : { args: options.args }),
    ...(options.boundary === undefined ? {} : { boundary: options.boundary }),
    ...(signal === undefined ? {} : { signal }),
  };
}

/** Refuse a business `key` (an adapter's option) that is given but not a non-empty string. */
export function checkOperationKey(key: unknown, operation: string): void {
  if (key !== undefined && (typeof key !== 'string' || key === '')) {
    throw new GuardError('invalid_operation', `\`key\` of a ledgered ${operation} must be a non-empty string`);
  }
}

/** The ledger declaration of a durable operation: a tool spec keyed by the operation id. */
export type DurableOperationSpec = Omit<ToolSpec, 'identity' | 'providerIdempotencyKeyParam' | 'boundary'>;

function checkOperation(operation: DurableOperation): void {
  if (typeof operation?.id !== 'string' || operation.id === '') {
    throw new GuardError('invalid_operation', 'A durable operation needs a non-empty string `id`');
  }
}

/**
 * Run `body` once for the engine operation `operation`, through `ledger`: the dispatch id is the
 * operation id, so every retry, replay and recovery of the operation meets one transition. A
 * completed effect is answered from its record; a claim that never committed raises
 * `LedgerHardBlockError` (see {@link isFinalDurableError}), which the engine adapter turns into the
 * engine's non-retryable failure.
 *
 * @example
 * const receipt = await runDurableOperation(ledger, { name: 'charge', sideEffectClass: 'payment' },
 *   { id: `${workflowId}:${activityId}` }, ({ operationId }) => payments.charge({ idempotencyKey: operationId }));
 */
export async function runDurableOperation<R>(
  ledger: Ledger,
  spec: DurableOperationSpec,
  operation: DurableOperation,
  body: (context: DurableOperationContext) => R | Promise<R>,
  options: DurableRunOptions = {},
): Promise<Awaited<R>> {
  recordArgument('runDurableOperation', 'ledger', ledger, ['tool']);
  checkArguments('runDurableOperation', { spec, operation, options });
  checkOperation(operation);
  if (typeof body !== 'function') {
    throw new GuardError('invalid_operation', `The body of durable operation \`${operation.id}\` is not a function`);
  }
  const boundary = options.boundary ?? 'body';
  const context: DurableOperationContext = { operationId: operation.id, signal: options.signal };
  if (boundary !== 'body' && boundary !== 'marked') {
    throw new GuardError('invalid_operation', `\`boundary\` must be 'body' or 'marked', got \`${String(boundary)}\``);
  }
  const tool = ledger.tool({ ...spec, identity: 'call', boundary }, async () => (await body(context)) as Awaited<R>);
  return tool(options.args ?? {}, {
    requestId: operation.id,
    // The operation id is the provider's idempotency key: a reconciler asks about it by that ref.
    externalOperationRef: operation.id,
    ...(operation.scope === undefined ? {} : { scope: operation.scope }),
    ...(options.signal === undefined ? {} : { abortSignal: options.signal }),
  });
}

/**
 * Whether an error of a durable operation must never be retried by the engine: a hard block (an
 * effect that may have happened, or a record an operator must see) stays blocked until an operator
 * releases it, so a retry can only spin.
 */
export function isFinalDurableError(error: unknown): boolean {
  return error instanceof LedgerHardBlockError;
}
