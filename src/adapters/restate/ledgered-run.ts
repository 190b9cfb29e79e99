/**
 * `ledgeredRun`: a Restate `ctx.run` whose action runs through the ledger, keyed by the invocation
 * id and the run's name, so a retry after a throw, an attempt aborted by the inactivity and abort
 * timeouts, and the replay of an invocation whose service process died all meet one transition.
 */
import { TerminalError } from '@restatedev/restate-sdk';
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

/** The retry policy of one `ctx.run` (Restate's `RunOptions`, its serde aside). */
export interface RestateRunRetryOptions {
  readonly maxRetryAttempts?: number;
  readonly maxRetryDuration?: number;
  readonly initialRetryInterval?: number;
  readonly maxRetryInterval?: number;
  readonly retryIntervalFactor?: number;
}

/**
 * The part of a Restate handler context `ledgeredRun` uses: `ctx.run` and `ctx.request()`. Every
 * Restate context (service, virtual object, workflow) has it.
 */
export interface RestateRunContext {
  run<T>(name: string, action: () => Promise<T>, options: RestateRunRetryOptions): PromiseLike<T>;
  request(): { readonly id: string; readonly attemptCompletedSignal?: AbortSignal };
}

/** Options of {@link ledgeredRun}. */
export interface LedgeredRunOptions extends Pick<DurableRunOptions, 'args' | 'boundary'> {
  /**
   * The operation id instead of `<invocationId>#<name>`: a business key (`charge:<orderId>`, or a
   * workflow's `ctx.key`) so a new invocation — a restart-as-new of a failed one, a new call for the
   * same order — meets the first invocation's record: its stored result or its hard block.
   */
  readonly key?: string;
  /** The retry policy of the `ctx.run` (Restate's `RunOptions`). */
  readonly retry?: RestateRunRetryOptions;
}

/** What a ledgered run's body is given. */
export interface RestateRunBodyContext extends DurableOperationContext {
  /** The invocation the run belongs to (`ctx.request().id`). */
  readonly invocationId: string;
}

/** Per attempt's context: how many runs of each name it started, so a repeated name gets its own id. */
const runsByContext = new WeakMap<object, Map<string, number>>();

function isRunContext(ctx: unknown): ctx is RestateRunContext {
  const candidate = ctx as Partial<RestateRunContext> | null | undefined;
  return typeof candidate?.run === 'function' && typeof candidate.request === 'function';
}

/** The id of the `nth` run named `name` in an invocation: `<invocationId>#<name>`, then `#<name>#2`, ... */
function runIdOf(ctx: RestateRunContext, invocationId: string, name: string): string {
  // A handler is deterministic (Restate replays it), so the nth run of a name is the same run on
  // every attempt: each attempt has a context of its own and counts from one again.
  let counts = runsByContext.get(ctx);
  if (counts === undefined) {
    counts = new Map();
    runsByContext.set(ctx, counts);
  }
  const nth = (counts.get(name) ?? 0) + 1;
  counts.set(name, nth);
  return nth === 1 ? `${invocationId}#${name}` : `${invocationId}#${name}#${nth}`;
}

/**
 * The engine's non-retryable failure for an error of a ledgered run: a hard block becomes a
 * `TerminalError` (Restate journals it as the run's result and retries nothing; the invocation fails
 * visibly) whose message starts with the code and whose `cause` is the hard block; anything else is
 * returned as is (Restate retries it).
 */
export function toRestateError(error: unknown): unknown {
  if (!isFinalDurableError(error)) return error;
  const { code, message } = error as { code: string; message: string };
  // Not `code`: a Restate error's `code` is its HTTP status, which the SDK sends to the server.
  return Object.assign(new TerminalError(`${code}: ${message}`), { cause: error });
}

/**
 * Run `body` as the `ctx.run` named `spec.name` of the current Restate handler, through `ledger`,
 * once whatever Restate retries or replays. The dispatch id is `<invocationId>#<name>`
 * (`ctx.request().id`, constant across the invocation's attempts; a second run of the same name in
 * one invocation is `#<name>#2`), the ledger scope the invocation; pass `context.operationId` to the
 * provider as its idempotency key. A run whose earlier attempt died mid-effect fails with a
 * `TerminalError` (message `ledger_hard_block: …`): Restate does not retry it, the invocation fails,
 * and the transition waits for an operator.
 *
 * @example
 * const orders = restate.service({
 *   name: 'orders',
 *   handlers: {
 *     charge: (ctx: restate.Context, order: { orderId: string; cents: number }) =>
 *       ledgeredRun(ctx, ledger, { name: 'charge', sideEffectClass: 'payment' },
 *         ({ operationId }) => payments.charge({ ...order, idempotencyKey: operationId }),
 *         { args: order }),
 *   },
 * });
 */
export async function ledgeredRun<R>(
  ctx: RestateRunContext,
  ledger: Ledger,
  spec: DurableOperationSpec,
  body: (context: RestateRunBodyContext) => R | Promise<R>,
  options: LedgeredRunOptions = {},
): Promise<Awaited<R>> {
  recordArgument('ledgeredRun', 'ledger', ledger, ['tool']);
  checkArguments('ledgeredRun', { spec, options });
  if (!isRunContext(ctx)) {
    throw new GuardError(
      'not_in_step',
      `\`${spec?.name}\` was called outside a Restate handler; pass the handler's context as the first argument`,
    );
  }
  checkOperationKey(options.key, 'run');
  if (typeof body !== 'function') {
    throw new GuardError('invalid_operation', `The body of Restate run \`${spec.name}\` is not a function`);
  }
  const request = ctx.request();
  const invocationId = request.id;
  const runId = runIdOf(ctx, invocationId, spec.name);
  const id = options.key ?? runId;
  const signal = request.attemptCompletedSignal;
  const result = await ctx.run(
    spec.name,
    async () => {
      try {
        return await runDurableOperation(
          ledger,
          spec,
          { id, scope: { runId: options.key === undefined ? invocationId : id } },
          (context) => body({ ...context, invocationId }),
          durableRunOptions(options, signal),
        );
      } catch (error) {
        throw toRestateError(error);
      }
    },
    { ...options.retry },
  );
  return result;
}
