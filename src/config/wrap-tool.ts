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
import { FuseCode } from '../fuses/verdict.js';
import { errorDenial, fuseDenial, refusedBody } from '../ledger/denial-verdicts.js';
import type { CallOptions, Ledger, Reconciler, ReconcilerObject, ToolSpec } from '../ledger/types.js';
import type { DecisionVerdict } from '../records/decision.js';
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

/** Writes the denial record of a refused call; never throws. */
type Denier = (args: unknown, options: CallOptions, denial: DecisionVerdict) => Promise<void>;

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
      'boundary',
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

/**
 * The denial writer of a ledgered tool: the refusal goes to the ledger as a denying verdict, on
 * the key path the call itself would take (its request id included), so the ledger writes the
 * denial record under a key of its own and the transition stays unclaimed.
 */
function denier(name: string, tool: ToolSettings, wiring: ToolWiring, overrides: ToolOverrides): Denier | undefined {
  if (!wiring.ledgered || wiring.ledger === undefined) return undefined;
  let refused: Layer = wiring.ledger.tool(toolSpec(name, tool, overrides.reconciler), refusedBody);
  if (tool.requestIdParam !== undefined) refused = withRequestId(name, tool.requestIdParam, refused);
  return async function recordDenial(args, options, denial) {
    try {
      await refused(args, { ...options, verdicts: [...(options.verdicts ?? []), denial] });
    } catch {
      // `decision_denied`, as intended; a store that failed is reported by the ledger's own hooks.
    }
  };
}

function fuseLayer(name: string, wiring: ToolWiring, next: Layer, deny: Denier | undefined): Layer {
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
    const verdict = run.checkToolCall(call);
    // A call refused because the run already stopped echoes the refusal that stopped it: no record.
    if (!verdict.allowed && verdict.code !== FuseCode.run_stopped) await deny?.(args, options, fuseDenial(verdict));
    assertAllowed(verdict);
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

function validationLayer(name: string, tool: ToolSettings, next: Layer, deny: Denier | undefined): Layer {
  if (tool.bounded === undefined) return next;
  // The body of a bounded tool runs only once its arguments passed: that is the verdict.
  const checked: Layer = (args, options) => next(args, withVerdict(options, 'arguments'));
  const boundary = bounded(boundedOptions(name, tool.bounded, tool.sideEffectClass), checked);
  if (deny === undefined) return boundary as Layer;
  return async function validated(args, options) {
    let admitted: Awaited<ReturnType<typeof boundary.check>>;
    try {
      admitted = await boundary.check(args as never);
    } catch (error) {
      if (error instanceof GuardError) await deny(args, options, errorDenial('arguments', error));
      throw error;
    }
    return boundary.execute(admitted, options);
  };
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
  const deny = denier(name, tool, wiring, overrides);
  const fused = (next: Layer): Layer => (wiring.fuses === undefined ? next : fuseLayer(name, wiring, next, deny));
  const direct = fused(validationLayer(name, tool, inner, deny));
  // The runner's registry takes the bounded tool itself: the runner checks the arguments and asks
  // the model again on a refusal, which is a turn of the conversation, not a denial.
  const forRunner = tool.bounded === undefined ? undefined : validationLayer(name, tool, fused(inner), undefined);
  const call = function configuredTool(args: unknown, options: CallOptions = {}): Promise<unknown> {
    return direct(args, options);
  };
  Object.defineProperty(call, 'name', { value: name });
  return { call, forRunner };
}
