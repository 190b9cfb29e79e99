/**
 * `hyphaeProcessor`: a Mastra processor at the provider boundary. `processLLMRequest` (just
 * before each model request) repairs the prompt and runs the budget pre-flight, and ends a run
 * the guards stopped without sending the request; `processOutputStep` (after each model step)
 * books the step's real usage in place of its reservation.
 */
import type { ModelReservation } from '../../fuses/budget.js';
import { checkArguments, unreadableArgument } from '../../invalid-argument.js';
import type { GuardRun } from '../shared/run-types.js';
import type { GuardRefusal } from '../shared/types.js';
import { type MastraRunRegistry, mastraRunRegistry, toPipeline } from './run-registry.js';
import type {
  HyphaeProcessor,
  HyphaeProcessorOptions,
  MastraGuards,
  MastraInputStepArgs,
  MastraLLMRequestArgs,
  MastraOutputStepArgs,
  MastraStopVerdict,
} from './types.js';

/** The processor's id: the `processorId` of the tripwire a stopped run ends with. */
const PROCESSOR_ID = 'hyphae';

function verdictOf(refusal: GuardRefusal): MastraStopVerdict {
  return { stage: refusal.stage, code: refusal.code, reason: refusal.reason, terminal: refusal.terminal };
}

function modelName(model: unknown, fallback: string | undefined): string {
  if (fallback !== undefined) return fallback;
  const id = typeof model === 'object' && model !== null ? (model as { modelId?: unknown }).modelId : model;
  return typeof id === 'string' && id !== '' ? id : 'unknown';
}

function sameMessages(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((message, index) => message === b[index]);
}

/** The step-to-step record of one call of `generate` or `stream`. */
interface StepSlot {
  cap: number | undefined;
  inFlight: { readonly reservation: ModelReservation | null } | undefined;
}

/** The processor over one registry (shared with the tool wrappers of the same pipeline). */
export function createHyphaeProcessor(registry: MastraRunRegistry, options: HyphaeProcessorOptions): HyphaeProcessor {
  const repair = options.repairTranscript !== false;
  // What one call of `generate` or `stream` carries from step to step: the completion cap of its
  // next request and the reservation of its request in flight. Keyed by the call's processor
  // `state` (two deliveries of one run at once each have their own), else by the run.
  const slots = new WeakMap<object, StepSlot>();
  const slotOf = (state: unknown, run: GuardRun): StepSlot => {
    const key = typeof state === 'object' && state !== null ? state : run;
    let slot = slots.get(key);
    if (slot === undefined) {
      slot = { cap: undefined, inFlight: undefined };
      slots.set(key, slot);
    }
    return slot;
  };
  const settle = (run: GuardRun, slot: StepSlot, usage: unknown): void => {
    const { inFlight } = slot;
    if (inFlight === undefined) return;
    slot.inFlight = undefined;
    run.recordModelUsage(usage, inFlight.reservation);
  };

  function processInputStep(args: MastraInputStepArgs): undefined {
    const cap = args.modelSettings?.maxOutputTokens;
    slotOf(args.state, registry.runFor(args.requestContext, options)).cap = typeof cap === 'number' ? cap : undefined;
    return undefined;
  }

  function processLLMRequest<M>(args: MastraLLMRequestArgs<M>): { readonly prompt: M[] } | undefined {
    const run = registry.runFor(args.requestContext, options);
    const slot = slotOf(args.state, run);
    // A request whose step never reported (it failed mid-stream): its tokens may have been spent.
    settle(run, slot, undefined);
    const prompt = repair ? run.repairTranscript(args.prompt, { format: 'ai-sdk' }) : [...args.prompt];
    const gate = run.checkModelCall({
      model: modelName(args.model, options.model),
      messages: prompt,
      maxOutputTokens: slot.cap,
    });
    if (gate.status === 'refused') {
      // The note of what stopped the run, rather than the echo `run_stopped`.
      const refusal = run.stopped ?? gate.refusal;
      return args.abort(refusal.message, { metadata: { hyphae: verdictOf(refusal) } });
    }
    slot.inFlight = { reservation: gate.reservation };
    return sameMessages(prompt, args.prompt) ? undefined : { prompt };
  }

  function processOutputStep<L>(args: MastraOutputStepArgs<L>): L {
    const run = registry.runFor(args.requestContext, options);
    settle(run, slotOf(args.state, run), args.usage);
    return args.messageList;
  }

  // Not frozen: Mastra writes its place in the list (`processorIndex`) on each processor.
  return { id: PROCESSOR_ID, name: 'hyphae guards', processInputStep, processLLMRequest, processOutputStep };
}

/**
 * A Mastra processor that holds the run's model requests to the guards. Before each request
 * (`processLLMRequest`) the prompt is repaired when it needs it (orphan results, unanswered
 * calls, duplicate ids) and the budget pre-flight runs on it, at the step's `maxOutputTokens`
 * (read in `processInputStep`; the pipeline's `defaultMaxOutputTokens` when it sets none); a request the guards refuse — a
 * run a terminal refusal stopped (the loop fuse, a used-up budget), a request the budget cannot
 * fit — is not sent: the processor aborts, and `generate()` returns with `finishReason: 'other'`
 * and a `tripwire` whose `metadata.hyphae` holds the verdict (read it with
 * {@link stoppedVerdictOf}). After each model step (`processOutputStep`) its usage is booked.
 *
 * Put the same processor in `inputProcessors` and `outputProcessors`, with the tools guarded by
 * `guardMastraTools` over the same pipeline (`withGuards` does both).
 *
 * @example
 * import { Agent } from '@mastra/core/agent';
 * import { guardMastraTools, hyphaeProcessor } from 'hyphae/mastra';
 *
 * const processor = hyphaeProcessor(pipeline);
 * const agent = new Agent({
 *   id: 'billing', name: 'billing', instructions: 'You pay invoices', model,
 *   tools: guardMastraTools(tools, pipeline),
 *   inputProcessors: [processor],
 *   outputProcessors: [processor],
 * });
 */
export function hyphaeProcessor(guards: MastraGuards, options: HyphaeProcessorOptions = {}): HyphaeProcessor {
  checkArguments('hyphaeProcessor', { guards, options });
  return createHyphaeProcessor(mastraRunRegistry(toPipeline(guards)), options);
}

/**
 * The verdict of a run the guards stopped: from the result of `agent.generate()` (its
 * `tripwire`), or from a stream's `await output.tripwire`. `undefined` when the guards did not
 * stop the run.
 *
 * @example
 * const result = await agent.generate('Pay invoice 42', { requestContext });
 * const verdict = stoppedVerdictOf(result); // { code: 'loop_repeat', stage: 'fuses', … } | undefined
 */
export function stoppedVerdictOf(result: unknown): MastraStopVerdict | undefined {
  try {
    if (typeof result !== 'object' || result === null) return undefined;
    const tripwire = 'tripwire' in result ? (result as { tripwire?: unknown }).tripwire : result;
    if (typeof tripwire !== 'object' || tripwire === null) return undefined;
    const { processorId, metadata } = tripwire as { processorId?: unknown; metadata?: unknown };
    if (processorId !== PROCESSOR_ID || typeof metadata !== 'object' || metadata === null) return undefined;
    const verdict = (metadata as { hyphae?: unknown }).hyphae;
    if (typeof verdict !== 'object' || verdict === null) return undefined;
    return typeof (verdict as { code?: unknown }).code === 'string' ? (verdict as MastraStopVerdict) : undefined;
  } catch (cause) {
    return unreadableArgument('stoppedVerdictOf', 'result', cause);
  }
}
