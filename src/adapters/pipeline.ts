/**
 * The guard pipeline: the one path every adapter sends its framework's tool calls and model calls
 * through (DESIGN principle 3, "One pipeline, many front doors").
 */
import { InvalidOptionError } from '../errors.js';
import type { FuseBox } from '../fuses/fuse-box.js';
import { checkOptions } from '../invalid-argument.js';
import type { Ledger } from '../ledger/types.js';
import { integerOption } from '../option-checks.js';
import { createGuardRun, type PipelineContext } from './shared/guard-run.js';
import type { GuardRun, GuardRunOptions } from './shared/run-types.js';
import { compileToolPlan, type GuardedToolSpec, type ToolPlan } from './shared/tool-plan.js';
import type { GuardEvent } from './shared/types.js';

/** The guards a pipeline composes; every one is optional. */
export interface GuardPipelineOptions {
  /** Runs each call once per transition (scope, tool, canonical arguments, call id). */
  readonly ledger?: Ledger;
  /** Permission and loop fuses on tool calls; the budget fuse on model calls. */
  readonly fuses?: FuseBox;
  /** An allow list (a `createToolRegistry` registry): names it refuses never reach the fuses. */
  readonly registry?: { assertAllowed(name: string): void };
  /** Per-tool schemas, side-effect classes, ledger options and caches; an undeclared tool is a write. */
  readonly tools?: Readonly<Record<string, GuardedToolSpec>>;
  /**
   * Fuses whose every refusal stops the run, terminal verdict or not (e.g. `['permission']`). Loop
   * and budget ceiling refusals are terminal already unless their fuse says `terminal: false`.
   */
  readonly terminalFuses?: readonly string[];
  /** Budget pre-flight cap for a model call that sets none. Default 4096. */
  readonly defaultMaxOutputTokens?: number;
  /** Receives every outcome; a throwing hook is ignored. */
  readonly onEvent?: (event: GuardEvent) => void;
}

/** A pipeline: per-run guard handles over shared guards. */
export interface GuardPipeline {
  /**
   * The run `{ threadId, runId, node }`: the same object for the same ids until its `end()`. Its
   * fuse run is the fuse box's run of `runId`, shared by every node of the run.
   */
  forRun(options: GuardRunOptions): GuardRun;
  readonly ledger: Ledger | undefined;
  readonly fuses: FuseBox | undefined;
}

/**
 * Compose a ledger, a fuse box, a registry and per-tool specs into the pipeline every adapter runs.
 *
 * @example
 * import { createFuseBox, createLedger, createMemoryStorage, loopFuse } from 'hyphae';
 * import { createGuardPipeline } from 'hyphae/openai';
 *
 * const pipeline = createGuardPipeline({
 *   ledger: createLedger({ storage: createMemoryStorage(), agentId: 'support', policyVersion: '1' }),
 *   fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }),
 *   tools: { lookup_order: { sideEffectClass: 'read', schema: { id: { type: 'string' } } } },
 * });
 * const run = pipeline.forRun({ threadId: 'thread-1', runId: 'run-1' });
 * const outcome = await run.executeToolCall(
 *   { id: 'call_1', name: 'lookup_order', args: { id: 'o_7' } },
 *   async (args) => orders.get((args as { id: string }).id),
 * );
 * // outcome: { status: 'ok', result, source: 'tool' } | { status: 'refused', message, code, terminal } | { status: 'error', … }
 */
export function createGuardPipeline(options: GuardPipelineOptions = {}): GuardPipeline {
  checkOptions('createGuardPipeline', options);
  const { ledger, fuses, registry, onEvent } = options;
  const specs = { ...options.tools };
  const plans = new Map<string, ToolPlan>();
  for (const [name, spec] of Object.entries(specs)) {
    const plan = compileToolPlan(name, spec);
    // A bad ledger spec throws now, not on the first call.
    if (ledger !== undefined && plan.ledgerSpec !== null) ledger.tool(plan.ledgerSpec, () => undefined);
    plans.set(name, plan);
  }
  const terminalFuses: ReadonlySet<string> = new Set(options.terminalFuses ?? []);
  const defaultMaxOutputTokens = integerOption('defaultMaxOutputTokens', options.defaultMaxOutputTokens ?? 4096);
  const runs = new Map<string, GuardRun>();

  function planFor(name: string): ToolPlan {
    let plan = plans.get(name);
    if (plan === undefined) {
      plan = compileToolPlan(name);
      plans.set(name, plan);
    }
    return plan;
  }

  function emit(event: GuardEvent): void {
    if (onEvent === undefined) return;
    try {
      onEvent(event);
    } catch {
      // A failing sink must not change an outcome.
    }
  }

  const shared: PipelineContext = {
    ledger,
    fuses,
    registry,
    terminalFuses,
    defaultMaxOutputTokens,
    plan: planFor,
    emit,
  };

  return {
    ledger,
    fuses,
    forRun(runOptions) {
      const key = JSON.stringify([runOptions?.threadId ?? null, runOptions?.runId, runOptions?.node ?? null]);
      let run = runs.get(key);
      if (run === undefined) {
        run = createGuardRun(shared, key, runOptions, () => {
          runs.delete(key);
          return ![...runs.values()].some((other) => other.runId === runOptions.runId);
        });
        runs.set(key, run);
      }
      return run;
    },
  };
}

/** The pipeline itself, or one built from its options: what every adapter accepts as `guards`. */
export function toGuardPipeline(guards: GuardPipeline | GuardPipelineOptions): GuardPipeline {
  if (typeof guards !== 'object' || guards === null) {
    throw new InvalidOptionError('guards', '`guards` must be a guard pipeline or its options');
  }
  return 'forRun' in guards && typeof guards.forRun === 'function'
    ? guards
    : createGuardPipeline(guards as GuardPipelineOptions);
}
