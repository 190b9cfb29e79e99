/**
 * `guardModel` and `guardModelProvider`: the provider boundary of an `@openai/agents` run. Before
 * each request the budget pre-flight runs on its prompt and tool schemas (a refused request is not
 * sent); after it, the real usage is booked in place of the reservation.
 */
import { InvalidOptionError } from '../../errors.js';
import type { ModelReservation } from '../../fuses/budget.js';
import { checkArguments } from '../../invalid-argument.js';
import type { GuardPipeline } from '../pipeline.js';
import { ModelCallRefusedError } from '../shared/errors.js';
import type { GuardRun, GuardRunOptions } from '../shared/run-types.js';
import type { GuardRefusal } from '../shared/types.js';
import { maxTokensOf, modelCallOf, usageOf } from './model-request.js';
import { recheckResentCalls } from './resent-calls.js';
import { toPipeline } from './run-registry.js';
import { stopResponse, stopStreamEvents } from './stop-response.js';
import type {
  AgentGuards,
  AgentModelLike,
  AgentModelProviderLike,
  AgentModelRequestLike,
  GuardAgentModelOptions,
  GuardedAgentModel,
  GuardedAgentModelProvider,
} from './types.js';

/** The model as the guard calls it. */
interface ModelMethods {
  readonly supportsPromptModelSelection?: boolean | undefined;
  getResponse(request: AgentModelRequestLike): Promise<unknown>;
  getStreamedResponse(request: AgentModelRequestLike): AsyncIterable<unknown>;
  getRetryAdvice?(args: unknown): unknown;
}

/** An admitted request: the run it was checked in, its reservation, and the request to send. */
interface Admission {
  readonly run: GuardRun;
  readonly reservation: ModelReservation | null;
  readonly request: AgentModelRequestLike;
}

/** A request the guards refused: answered by the stop response, never sent. */
interface Refusal {
  readonly refused: GuardRefusal;
}

function nonEmpty(option: string, value: unknown, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') {
    throw new InvalidOptionError(option, `\`${option}\` must be a non-empty string, got \`${String(value)}\``);
  }
  return value;
}

function runOptionsOf(options: GuardAgentModelOptions): GuardRunOptions {
  if (typeof options !== 'object' || options === null) {
    throw new InvalidOptionError('options', 'A guarded model needs `{ runId }`: the run its calls belong to');
  }
  const runId = nonEmpty('runId', options.runId, true) as string;
  const threadId = nonEmpty('threadId', options.threadId, false);
  nonEmpty('model', options.model, false);
  return Object.freeze(threadId === undefined ? { runId } : { threadId, runId });
}

function guarded(model: ModelMethods, pipeline: GuardPipeline, runOptions: GuardRunOptions, name: string) {
  function admit(request: AgentModelRequestLike): Admission | Refusal {
    // The pipeline's live run of these ids: one the tools' registry ended is not used again.
    const run = pipeline.forRun(runOptions);
    const gate = run.checkModelCall(modelCallOf(name, request));
    // The note of what stopped the run, rather than the echo `run_stopped`.
    if (gate.status === 'refused') return { refused: run.stopped ?? gate.refusal };
    // Under a budget, an uncapped request gets the cap its reservation assumed.
    const capped = gate.reservation !== null && maxTokensOf(request) === undefined;
    const next = capped
      ? { ...request, modelSettings: { ...request.modelSettings, maxTokens: gate.maxOutputTokens } }
      : request;
    return { run, reservation: gate.reservation, request: next };
  }

  async function getResponse(request: AgentModelRequestLike): Promise<unknown> {
    const admission = admit(request);
    if ('refused' in admission) return stopResponse(admission.refused);
    const { run, reservation, request: sent } = admission;
    let response: unknown;
    try {
      response = await model.getResponse(sent);
    } catch (error) {
      // Aborts and provider errors go back as they are; the call was not answered.
      run.releaseModelCall(reservation);
      throw error;
    }
    const usage =
      typeof response === 'object' && response !== null ? (response as { usage?: unknown }).usage : undefined;
    run.recordModelUsage(usageOf(usage), reservation);
    await recheckResentCalls(run, sent.input, response);
    return response;
  }

  async function* getStreamedResponse(request: AgentModelRequestLike): AsyncGenerator<unknown, void, undefined> {
    const admission = admit(request);
    if ('refused' in admission) {
      yield* stopStreamEvents(admission.refused);
      return;
    }
    const { run, reservation, request: sent } = admission;
    let started = false;
    let settled = false;
    try {
      for await (const event of model.getStreamedResponse(sent)) {
        started = true;
        const done = event as { type?: unknown; response?: { usage?: unknown } } | null;
        if (!settled && done?.type === 'response_done') {
          settled = true;
          run.recordModelUsage(usageOf(done.response?.usage), reservation);
          await recheckResentCalls(run, sent.input, done.response);
        }
        yield event;
      }
    } catch (error) {
      if (!started) {
        // Failed before its first event, as a request the provider refused: nothing was streamed.
        settled = true;
        run.releaseModelCall(reservation);
      }
      throw error;
    } finally {
      // Ended, failed or cancelled without `response_done`: the tokens may have been spent, so
      // the reservation is booked in their place.
      if (!settled) run.recordModelUsage(undefined, reservation);
    }
  }

  // Whether the model advises on retries is fixed when it is wrapped; a non-function is ignored.
  const advises = typeof model.getRetryAdvice === 'function';
  function getRetryAdvice(args: unknown): unknown {
    const error = typeof args === 'object' && args !== null ? (args as { error?: unknown }).error : undefined;
    // A refused request was never sent, and a retry would be refused again.
    if (error instanceof ModelCallRefusedError) {
      return { suggested: false, replaySafety: 'safe', reason: error.message };
    }
    return advises ? model.getRetryAdvice?.(args) : undefined;
  }

  const copy = { getResponse, getStreamedResponse, getRetryAdvice };
  Object.defineProperty(copy, 'supportsPromptModelSelection', {
    get: () => model.supportsPromptModelSelection,
    enumerable: true,
  });
  return Object.freeze(copy);
}

function methodsOf(model: AgentModelLike): ModelMethods {
  if (
    typeof model !== 'object' ||
    model === null ||
    typeof model.getResponse !== 'function' ||
    typeof model.getStreamedResponse !== 'function'
  ) {
    throw new InvalidOptionError(
      'model',
      '`guardModel` wraps a `Model`: an object with `getResponse` and `getStreamedResponse`',
    );
  }
  return model as unknown as ModelMethods;
}

/**
 * Guard an `@openai/agents` `Model`: before each request (`getResponse`, `getStreamedResponse`)
 * the budget pre-flight runs on its instructions, input, tool and handoff schemas and completion
 * cap, in the run `options` names; under a budget, an uncapped request gets the cap its estimate
 * assumed. A refused request (a run the guards stopped, a call the budget cannot fit) is not
 * sent: it is answered with a final assistant message — the note of the refusal that stopped the
 * run, no tool calls, the verdict in its `providerData.hyphae` — so `run()` (streamed or not)
 * ends with the note as its `finalOutput`. After each request its
 * `Usage` is booked (a stream's from its `response_done` event); a request that failed gives its
 * reservation back, and errors (aborts included) are re-thrown as they are.
 *
 * Name the same run in the run's context, so the guarded tools share it.
 *
 * @example
 * import { Agent, run } from '@openai/agents';
 * import { guardAgentTools, guardModel } from 'hyphae/openai-agents';
 *
 * const scope = { threadId: 'inv-7', runId: 'pay-inv-7' };
 * const agent = new Agent({
 *   name: 'billing',
 *   model: guardModel(model, pipeline, { ...scope, model: 'gpt-4o-mini' }),
 *   tools: guardAgentTools(tools, pipeline),
 * });
 * await run(agent, 'Pay invoice 7', { context: scope });
 */
export function guardModel<M extends AgentModelLike>(
  model: M,
  guards: AgentGuards,
  options: GuardAgentModelOptions,
): GuardedAgentModel<M> {
  checkArguments('guardModel', { model, guards, options }, []);
  const methods = methodsOf(model);
  const runOptions = runOptionsOf(options);
  return guarded(
    methods,
    toPipeline(guards),
    runOptions,
    options.model ?? 'unknown',
  ) as unknown as GuardedAgentModel<M>;
}

/**
 * Guard an `@openai/agents` `ModelProvider`, for `new Runner({ modelProvider })`: every model it
 * gives is wrapped as by {@link guardModel}, priced at the name it was asked for (or
 * `options.model` for the provider's default model).
 *
 * @example
 * import { OpenAIProvider, Runner } from '@openai/agents';
 * import { guardModelProvider } from 'hyphae/openai-agents';
 *
 * const scope = { threadId: 'inv-7', runId: 'pay-inv-7' };
 * const runner = new Runner({ modelProvider: guardModelProvider(new OpenAIProvider(), pipeline, scope) });
 * await runner.run(agent, 'Pay invoice 7', { context: scope });
 */
export function guardModelProvider<P extends AgentModelProviderLike>(
  provider: P,
  guards: AgentGuards,
  options: GuardAgentModelOptions,
): GuardedAgentModelProvider<P> {
  checkArguments('guardModelProvider', { provider, guards, options }, []);
  if (typeof provider !== 'object' || provider === null || typeof provider.getModel !== 'function') {
    throw new InvalidOptionError('provider', '`guardModelProvider` wraps a `ModelProvider`: an object with `getModel`');
  }
  const pipeline = toPipeline(guards);
  const runOptions = runOptionsOf(options);
  async function getModel(modelName?: string) {
    const model = await (modelName === undefined ? provider.getModel() : provider.getModel(modelName));
    const name = modelName === undefined || modelName === '' ? (options.model ?? 'unknown') : modelName;
    return guarded(methodsOf(model), pipeline, runOptions, name);
  }
  return Object.freeze({ getModel }) as unknown as GuardedAgentModelProvider<P>;
}
