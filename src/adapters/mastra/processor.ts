/**
 * `hyphaeProcessor`: a Mastra processor at the provider boundary. `processLLMRequest` (just
 * before each model request) repairs the prompt and runs the budget pre-flight, and answers the
 * request of a run the guards stopped itself, with the refusal's note, without sending it;
 * `processOutputStep` (after each model step) books the step's real usage in place of its
 * reservation.
 */
import type { ModelReservation } from '../../fuses/budget.js';
import { checkArguments } from '../../invalid-argument.js';
import type { GuardRun } from '../shared/run-types.js';
import { type MastraRunRegistry, mastraRunRegistry, toPipeline } from './run-registry.js';
import { stopResponse } from './stop-response.js';
import type {
  HyphaeProcessor,
  HyphaeProcessorOptions,
  MastraGuards,
  MastraInputStepArgs,
  MastraLLMRequestArgs,
  MastraLLMRequestResult,
  MastraOutputStepArgs,
} from './types.js';

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

  function processLLMRequest<M>(args: MastraLLMRequestArgs<M>): MastraLLMRequestResult<M> {
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
      // The note of what stopped the run, rather than the echo `run_stopped`. Mastra replays this
      // answer in place of the model's: the request is not sent.
      return { response: stopResponse(run.stopped ?? gate.refusal) };
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
  return { id: 'hyphae', name: 'hyphae guards', processInputStep, processLLMRequest, processOutputStep };
}

/**
 * A Mastra processor that holds the run's model requests to the guards. Before each request
 * (`processLLMRequest`) the prompt is repaired when it needs it (orphan results, unanswered
 * calls, duplicate ids) and the budget pre-flight runs on it, at the step's `maxOutputTokens`
 * (read in `processInputStep`; the pipeline's `defaultMaxOutputTokens` when it sets none). A
 * request the guards refuse — a run a terminal refusal stopped (the loop fuse, a used-up budget),
 * a request the budget cannot fit — is not sent: the processor answers it with a final step whose
 * text is the refusal's note (no tool calls, `finishReason: 'stop'`), so `generate()` and
 * `stream()` end normally with the note as `text` and the verdict in `providerMetadata.hyphae`
 * (read it with `stoppedVerdictOf`). After each model step (`processOutputStep`) its usage is
 * booked.
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
