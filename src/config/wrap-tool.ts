/**
 * One configured tool, wrapped in the pipeline's order: fuses → validation → ledger → cache → body.
 *
 * Each layer is present only when the config asks for it, so a tool with no settings is its own
 * body (made async). The validation layer is `bounded`, which also validates the output on the
 * way back; the ledger layer records the result the cache produced.
 */
import { bounded } from '../boundary/bounded.js';
import { protect } from '../context/protect.js';
import type { Clock } from '../core/clock.js';
import { GuardError } from '../errors.js';
import { assertAllowed } from '../fuses/errors.js';
import type { FuseBox } from '../fuses/fuse-box.js';
import type { FuseRun } from '../fuses/run-box.js';
import type { CallOptions, Ledger, Reconciler, ReconcilerObject, ToolSpec } from '../ledger/types.js';
import { boundedOptions } from './bounded-rules.js';
import { pickDefined } from './defined.js';
import type { ToolSettings } from './types.js';

/** A tool body as the config wraps it: the arguments object and the call options. */
export type ToolBody<A, R> = (args: A, options: CallOptions) => R | Promise<R>;

/** A configured tool: the body's signature, made async. */
export type ConfiguredTool<A, R> = (args: A, options?: CallOptions) => Promise<R>;

/** What code adds to a tool's configured settings. */
export interface ToolOverrides {
  /** Asks the provider whether an UNKNOWN call happened; YAML cannot hold one. */
  readonly reconciler?: Reconciler | ReconcilerObject;
}

/** What wrapping needs from the loaded config. */
export interface ToolWiring {
  readonly ledger: Ledger | undefined;
  readonly ledgered: boolean;
  readonly fuses: FuseBox | undefined;
  readonly clock: Clock | undefined;
  /** The fuse run of the current `config.run`, if any. */
  readonly currentFuseRun: () => FuseRun | undefined;
}

type Layer = (args: unknown, options: CallOptions) => Promise<unknown>;

/** `options` with one more check verdict, for the decision the ledger writes with its claim. */
function withVerdict(options: CallOptions, check: string): CallOptions {
  return { ...options, verdicts: [...(options.verdicts ?? []), { check, verdict: 'allow' }] };
}

function toolSpec(name: string, tool: ToolSettings, reconciler: Reconciler | ReconcilerObject | undefined): ToolSpec {
  return {
    name,
    sideEffectClass: tool.sideEffectClass ?? 'non_idempotent_mutate',
    ...pickDefined(tool, [
      'retryPermission',
      'spendability',
      'providerIdempotencyKeyParam',
      'providerIdempotencyKeyTtlMs',
      'identity',
      'capability',
      'bookkeepingParams',
      'leaseTtlMs',
      'onArgsDrift',
    ]),
    ...(reconciler === undefined ? {} : { reconciler }),
  };
}

/**
 * `request_id_param`: the argument's value becomes the call's request id and the model's tool call
 * id is dropped, so a regenerated call with a fresh id lands on the same transition. A call without
 * the argument is refused before anything is claimed.
 */
function withRequestId(name: string, param: string, next: Layer): Layer {
  return function requestIdentified(args, options) {
    const value = (args as Record<string, unknown> | null | undefined)?.[param];
    if (!((typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value)))) {
      return Promise.reject(
        new GuardError(
          'missing_request_id',
          `Tool \`${name}\` takes its request id from \`${param}\`, which is missing or not a string or number; the tool was not run`,
          { llmMessage: `The call to \`${name}\` was NOT executed: it needs the argument \`${param}\`.` },
        ),
      );
    }
    const { toolCallId: _dropped, ...rest } = options;
    return next(args, { ...rest, requestId: String(value) });
  };
}

function fuseLayer(name: string, wiring: ToolWiring, next: Layer): Layer {
  const box = wiring.fuses as FuseBox;
  return async function fused(args, options) {
    const runId = options.scope?.runId;
    const run = wiring.currentFuseRun() ?? (runId === undefined ? undefined : box.forRun(runId));
    if (run === undefined) {
      throw new GuardError(
        'config_no_run',
        `Tool \`${name}\` was called outside \`config.run\`: its fuses need a run (wrap the agent turn in \`config.run({ threadId, runId }, …)\` or pass \`scope.runId\`)`,
      );
    }
    const call = options.toolCallId === undefined ? { name, args } : { id: options.toolCallId, name, args };
    assertAllowed(run.checkToolCall(call));
    let result: unknown;
    try {
      result = await next(args, withVerdict(options, 'fuses'));
    } catch (error) {
      // A failed call is booked as one, so an identical retry spends the loop fuse's retry
      // allowance rather than counting as a repeat.
      run.recordToolResult(call, { ok: false });
      throw error;
    }
    run.recordToolResult({ ...call, result });
    return result;
  };
}

/** The layers under validation: ledger → cache → body. */
function innerLayers(
  name: string,
  tool: ToolSettings,
  wiring: ToolWiring,
  body: Layer,
  overrides: ToolOverrides,
): Layer {
  let layer: Layer = body;
  if (tool.protect !== undefined) {
    const { entityParam, ttlMs, maxEntries } = tool.protect;
    const clock = wiring.clock === undefined ? {} : { clock: wiring.clock };
    const cached = protect<Record<string, unknown>, unknown, [CallOptions]>(
      { name, entityParam, ttlMs, maxEntries, ...clock },
      layer as (args: Record<string, unknown>, options: CallOptions) => Promise<unknown>,
    );
    layer = (args, options) => cached(args as Record<string, unknown>, options);
  }
  if (wiring.ledgered && wiring.ledger !== undefined) {
    const ledgered = wiring.ledger.tool(toolSpec(name, tool, overrides.reconciler), layer);
    layer = (args, options) => ledgered(args, options);
    if (tool.requestIdParam !== undefined) layer = withRequestId(name, tool.requestIdParam, layer);
  }
  return layer;
}

function validationLayer(name: string, tool: ToolSettings, next: Layer): Layer {
  if (tool.bounded === undefined) return next;
  // The body of a bounded tool runs only once its arguments passed: that is the verdict.
  const checked: Layer = (args, options) => next(args, withVerdict(options, 'arguments'));
  return bounded(boundedOptions(name, tool.bounded, tool.sideEffectClass), checked) as Layer;
}

/**
 * Wrap `fn` as the configured tool `name`.
 *
 * @returns the tool for direct calls (fuses → validation → ledger → cache → body) and, when the
 * tool is bounded, the tool for the runner's registry: a bounded tool (the runner validates first)
 * whose body runs fuses → ledger → cache → body.
 */
export function wrapTool(
  name: string,
  tool: ToolSettings,
  wiring: ToolWiring,
  fn: ToolBody<unknown, unknown>,
  overrides: ToolOverrides = {},
): { readonly call: ConfiguredTool<unknown, unknown>; readonly forRunner: unknown } {
  const body: Layer = async (args, options) => fn(args, options);
  const inner = innerLayers(name, tool, wiring, body, overrides);
  const fused = (next: Layer): Layer => (wiring.fuses === undefined ? next : fuseLayer(name, wiring, next));
  const direct = fused(validationLayer(name, tool, inner));
  const forRunner = tool.bounded === undefined ? undefined : validationLayer(name, tool, fused(inner));
  const call = function configuredTool(args: unknown, options: CallOptions = {}): Promise<unknown> {
    return direct(args, options);
  };
  Object.defineProperty(call, 'name', { value: name });
  return { call, forRunner };
}
