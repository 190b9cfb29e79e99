/**
 * The transition ledger: a side effect happens once, however often its call is dispatched.
 */
import { systemClock } from '../core/clock.js';
import { createAsyncScope } from '../core/scope.js';
import { InvalidOptionError, LedgerHardBlockError } from '../errors.js';
import { optionsOf } from '../invalid-argument.js';
import { durationOption, textOption } from '../option-checks.js';
import { markerScope } from './boundary-markers.js';
import { readCallArguments, readCallOptions } from './call-arguments.js';
import { createCallIdentityCheck } from './call-identity.js';
import { type CallTrace, startTrace } from './call-trace.js';
import { type Body, scheduleOn } from './claim-records.js';
import { refuseDenied } from './denial-records.js';
import { execute } from './execute.js';
import type { ExecutorContext } from './executor-context.js';
import { createGuardRecords } from './guard-records.js';
import { markWorkerDead } from './operator/mark-worker-dead.js';
import { releaseTransition, waitForTransition } from './operator/release.js';
import { newOwnerPrefix } from './owner-id.js';
import { prepareCall, type ResolvedSpec, type RunContext, resolveSpec } from './prepare-call.js';
import { receiptBlocked, sweepReceipts } from './receipts/ledger-receipts.js';
import { createReceiptWriter, type ReceiptWriter } from './receipts/receipt-writer.js';
import { reconcilerOf } from './reconciler-of.js';
import { normalizeScope } from './transition-key.js';
import type {
  CallOptions,
  Ledger,
  LedgeredFunction,
  LedgerOptions,
  LedgerReceiptsOption,
  TaskCallOptions,
  TaskSpec,
  ToolSpec,
} from './types.js';

function positive(name: string, value: number | undefined, fallback: number): number {
  return value === undefined ? fallback : durationOption(name, value);
}

function receiptWriterOf(option: LedgerReceiptsOption | undefined): ReceiptWriter | undefined {
  if (option === undefined) return undefined;
  if (option === null || typeof option !== 'object' || option.sink === undefined || option.signer === undefined) {
    throw new InvalidOptionError('receipts', '`receipts` needs a `sink` and a `signer`');
  }
  return 'write' in option && typeof option.write === 'function'
    ? option
    : createReceiptWriter({ sink: option.sink, signer: option.signer });
}

/** Tell `trace` how `run` settled; a function of its own, so an unobserved call captures nothing. */
function settledIn(trace: CallTrace, run: Promise<unknown>): Promise<unknown> {
  return run.then(
    (value) => {
      trace.settled(true);
      return value;
    },
    (error: unknown) => {
      trace.settled(false, error);
      throw error;
    },
  );
}

/**
 * Create a transition ledger over a storage driver.
 *
 * @example
 * import { createLedger, sideEffect, recordExternalOperation } from 'hyphae';
 * import { createSqliteStorage } from 'hyphae/sqlite';
 *
 * const ledger = createLedger({
 *   storage: createSqliteStorage({ path: '.hyphae/ledger.db' }),
 *   agentId: 'payment-agent',
 *   policyVersion: '2026.07.1',
 * });
 * const pay = ledger.tool(
 *   { name: 'send_payment', sideEffectClass: 'keyed_mutate', providerIdempotencyKeyParam: 'idempotencyKey' },
 *   async (args: { amount: number; idempotencyKey: string }) =>
 *     sideEffect(async () => {
 *       const intent = await gateway.charge(args);
 *       await recordExternalOperation(intent.id);
 *       return intent;
 *     }),
 * );
 * await pay({ amount: 100, idempotencyKey: 'k1' }, { toolCallId: 'call_abc' });
 */
export function createLedger(given: LedgerOptions): Ledger {
  const options = optionsOf('createLedger', given);
  if (options.storage === undefined) {
    throw new InvalidOptionError('storage', 'createLedger needs a `storage`');
  }
  const agentId = textOption('agentId', options.agentId, true);
  const policyVersion = textOption('policyVersion', options.policyVersion, true);
  // Zero or less is an unbounded lease.
  const leaseTtlMs = durationOption('leaseTtlMs', options.leaseTtlMs ?? 300_000, 'any');
  const ownerPrefix = newOwnerPrefix(options.ownerId);
  let claims = 0;
  const runScope = createAsyncScope<RunContext>();
  const receipts = receiptWriterOf(options.receipts);
  if (options.onEvent !== undefined && typeof options.onEvent !== 'function') {
    throw new InvalidOptionError('onEvent', '`onEvent` must be a function');
  }

  const deathPolicy = options.reclaimRequiresDeathSignal ?? 'consequential';
  if (deathPolicy !== true && deathPolicy !== false && deathPolicy !== 'consequential') {
    throw new InvalidOptionError(
      'reclaimRequiresDeathSignal',
      `\`reclaimRequiresDeathSignal\` must be \`true\`, \`false\` or \`'consequential'\`, got \`${String(deathPolicy)}\``,
    );
  }
  const presumedDeadAfterMs = options.presumedDeadAfterMs;
  if (presumedDeadAfterMs !== undefined && (!Number.isFinite(presumedDeadAfterMs) || presumedDeadAfterMs < 0)) {
    throw new InvalidOptionError(
      'presumedDeadAfterMs',
      `\`presumedDeadAfterMs\` must be a non-negative number, got \`${presumedDeadAfterMs}\``,
    );
  }
  const onCallEvent = options.onCallEvent;
  if (onCallEvent !== undefined && typeof onCallEvent !== 'function') {
    throw new InvalidOptionError('onCallEvent', '`onCallEvent` must be a function');
  }
  let calls = 0;

  const ctx: ExecutorContext = Object.freeze({
    storage: options.storage,
    clock: options.clock ?? systemClock,
    agentId,
    policyVersion,
    leaseTtlMs,
    schedule: scheduleOn(options.clock ?? systemClock),
    // 0 turns renewal off, as in mycelium-runtime (a lease then expires `leaseTtlMs` after the claim).
    renewIntervalMs:
      options.leaseRenewIntervalMs === undefined
        ? undefined
        : options.leaseRenewIntervalMs === 0
          ? 0
          : positive('leaseRenewIntervalMs', options.leaseRenewIntervalMs, 1),
    pollIntervalMs: positive('pollIntervalMs', options.pollIntervalMs, 25),
    pollMaxIntervalMs: positive('pollMaxIntervalMs', options.pollMaxIntervalMs, 1_000),
    pollTimeoutMs:
      options.pollTimeoutMs === undefined ? undefined : positive('pollTimeoutMs', options.pollTimeoutMs, 1),
    reconciler: reconcilerOf(options.reconciler, 'The ledger option'),
    reconcileTimeoutMs: positive('reconcileTimeoutMs', options.reconcileTimeoutMs, 10_000),
    logger: options.logger,
    deferReadOnlyUnknown: options.deferReadOnlyUnknown === true,
    reclaimRequiresDeathSignal: deathPolicy,
    presumedDeadAfterMs,
    markerWarned: new Set<string>(),
    receipts,
    onEvent: options.onEvent,
    newOwner: () => `${ownerPrefix}#${++claims}`,
  });
  const defaultDrift = options.onArgsDrift ?? 'soft';
  const checkCall = createCallIdentityCheck(options.requestIdentity, options.logger);

  // A frozen spec cannot change, so its resolution is kept: adapters wrap one call at a time in
  // `tool(spec, body)` with the same spec, and the transition key template is cached per resolution.
  const resolvedTools = new WeakMap<ToolSpec, ResolvedSpec>();
  function resolvedTool(spec: ToolSpec): ResolvedSpec {
    const known = typeof spec === 'object' && spec !== null ? resolvedTools.get(spec) : undefined;
    if (known !== undefined) return known;
    const resolved = resolveSpec('tool', spec, ctx.reconciler !== undefined);
    const withDrift = Object.freeze({ ...resolved, onArgsDrift: resolved.onArgsDrift ?? defaultDrift });
    if (Object.isFrozen(spec)) resolvedTools.set(spec, withDrift);
    return withDrift;
  }

  /** Every refusal gets a BLOCKED receipt before the error reaches the caller. */
  function withBlockedReceipt(run: Promise<unknown>): Promise<unknown> {
    return run.catch(async (error: unknown) => {
      if (error instanceof LedgerHardBlockError) await receiptBlocked(ctx, error.record, error);
      throw error;
    });
  }

  function wrap(spec: ResolvedSpec, body: Body) {
    return function ledgered(args: unknown, callOptions: TaskCallOptions = {}): Promise<unknown> {
      // Preparing the call can throw (arguments with no JSON form, options that are not an object,
      // a getter that throws): that refuses before any claim.
      let run: Promise<unknown>;
      try {
        const context = runScope.get();
        const read = readCallOptions(spec.name, callOptions);
        checkCall(spec, read, context);
        const call = readCallArguments(spec.name, () => prepareCall(spec, agentId, policyVersion, args, read, context));
        // A refused call claims nothing: it leaves a denial record of its own and is refused.
        if (call.denied !== null) return refuseDenied(ctx, call, call.denied);
        const trace =
          onCallEvent === undefined ? undefined : startTrace(onCallEvent, ctx.clock, ctx.logger, ++calls, call);
        run = execute(ctx, call, body, callOptions, trace);
        if (receipts !== undefined) run = withBlockedReceipt(run);
        return trace === undefined ? run : settledIn(trace, run);
      } catch (error) {
        run = Promise.reject(error);
      }
      return receipts === undefined ? run : withBlockedReceipt(run);
    };
  }

  return {
    agentId,
    policyVersion,
    storage: options.storage,
    tool<A, R>(spec: ToolSpec, fn: (args: A, options: CallOptions) => R | Promise<R>): LedgeredFunction<A, Awaited<R>> {
      return wrap(resolvedTool(spec), fn as Body) as LedgeredFunction<A, Awaited<R>>;
    },
    task<A, R>(
      spec: TaskSpec,
      fn: (args: A, options: TaskCallOptions) => R | Promise<R>,
    ): LedgeredFunction<A, Awaited<R>, TaskCallOptions> {
      return wrap(resolveSpec('task', spec, ctx.reconciler !== undefined), fn as Body) as LedgeredFunction<
        A,
        Awaited<R>,
        TaskCallOptions
      >;
    },
    run(scope, fn) {
      const outer = runScope.get();
      const merged = normalizeScope({ ...outer?.scope, ...normalizeScope(scope) });
      const dispatchId = scope.dispatchId ?? outer?.dispatchId;
      const context = dispatchId === undefined ? { scope: merged } : { scope: merged, dispatchId };
      // Markers called in the run but outside a ledgered tool can then say so through the logger.
      return runScope.run(context, () =>
        markerScope.run({ claim: null, logger: ctx.logger, warned: ctx.markerWarned }, fn),
      );
    },
    release: (key, input) => releaseTransition(ctx, key, input),
    records: createGuardRecords({
      ...ctx,
      releaseNotExecuted: (key, audit) => releaseTransition(ctx, key, { verified: 'not_executed', ...audit }),
    }),
    markWorkerDead: ((target: Parameters<typeof markWorkerDead>[1], input: Parameters<typeof markWorkerDead>[2]) =>
      markWorkerDead(ctx, target, input)) as Ledger['markWorkerDead'],
    waitFor: (key, waitOptions) => waitForTransition(ctx, key, waitOptions),
    get: (key) => ctx.storage.get(key),
    list: (query) => ctx.storage.list(query),
    sweepReceipts: (sweepOptions) => sweepReceipts(ctx, sweepOptions),
    async close() {
      try {
        await receipts?.close();
      } finally {
        await ctx.storage.close();
      }
    },
  };
}
