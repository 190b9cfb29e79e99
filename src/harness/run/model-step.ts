/**
 * One main-model call: context policy → checked context → provider-token pre-flight → the call
 * (raced against the caller's signal and the run's time limit) → usage booked → trace.
 */
import { checkContext } from '../context-policy/check-context.js';
import type { ModelContextPolicy } from '../context-policy/context-policy.js';
import { RunLimit, type RunLimitExceededError, runStopped } from '../errors.js';
import type {
  MainModel,
  ModelMessage,
  ModelRequest,
  ModelResponse,
  ModelToolDefinition,
  ModelUsage,
} from '../models/types.js';
import { createModelCallTrace, type ModelCallTrace, responseTraceFields } from '../traces.js';
import { checkedUsage } from '../usage.js';
import { FINAL_RESPONSE_FORMAT } from './contract.js';
import { raceSignals } from './race.js';
import type { RunContext } from './run-context.js';

/** What a model step needs besides the run. */
export interface ModelStepSetup {
  readonly model: MainModel;
  readonly tools: readonly ModelToolDefinition[];
  readonly contextPolicy: ModelContextPolicy;
  readonly runPromptIndex: number;
}

/** A model call that answered. */
export interface ModelStepResult {
  readonly response: ModelResponse;
  readonly trace: ModelCallTrace;
  readonly usage: ModelUsage | undefined;
}

/** The run stopped on its provider-token budget. */
export function budgetStop(run: RunContext, reason: string): RunLimitExceededError {
  return runStopped(run.runId, RunLimit.maxProviderTokens, run.limits.maxProviderTokens ?? 0, reason);
}

/** A usage report in the shape the budget fuse reads. */
export function usageShape(usage: ModelUsage | undefined): unknown {
  if (usage === undefined) return undefined;
  return {
    inputTokens: usage.inputTokens,
    outputTokens: usage.outputTokens,
    inputTokenDetails: { cacheReadTokens: usage.cachedInputTokens ?? 0, cacheWriteTokens: usage.cacheWriteTokens ?? 0 },
    outputTokenDetails: { reasoningTokens: usage.reasoningTokens ?? 0 },
  };
}

/** Make main-model call number `step`; `record` receives its trace whether it answered or failed. */
export async function callMainModel(
  run: RunContext,
  setup: ModelStepSetup,
  transcript: readonly ModelMessage[],
  step: number,
  stepId: string,
  record: (trace: ModelCallTrace, usage: ModelUsage | undefined) => void,
): Promise<ModelStepResult> {
  const info = { runId: run.runId, step, modelCalls: step - 1, runPromptIndex: setup.runPromptIndex };
  const shaped = Promise.resolve().then(() => setup.contextPolicy.apply([...transcript], info));
  const messages = await raceSignals(shaped, [run.signal, run.runTimeout]);
  checkContext(setup.contextPolicy.name, messages, transcript, setup.runPromptIndex);
  const request: ModelRequest = {
    messages: [...messages],
    tools: setup.tools,
    responseFormat: FINAL_RESPONSE_FORMAT,
    maxOutputTokens: run.limits.maxOutputTokens,
    ...(run.signal === undefined ? {} : { signal: run.signal }),
    timeoutSignal: run.runTimeout,
  };
  const model = setup.model.id;
  const { verdict, reservation } = run.fuses.checkModelCall({
    model,
    messages,
    tools: setup.tools,
    maxOutputTokens: request.maxOutputTokens,
  });
  if (!verdict.allowed) throw budgetStop(run, verdict.reason);

  const callId = `${stepId}/model`;
  const startedAt = run.clock.now();
  const traceOf = (status: 'ok' | 'error', extra: object, usage?: ModelUsage): ModelCallTrace =>
    createModelCallTrace({
      callId,
      runId: run.runId,
      stepId,
      kind: 'main',
      purpose: 'main',
      model,
      startedAt,
      elapsedMs: run.clock.now() - startedAt,
      status,
      input: { messages: request.messages, tools: setup.tools.map((tool) => tool.name) },
      cacheHit: null,
      ...(usage === undefined ? {} : { usage }),
      ...extra,
    });
  const call = { kind: 'main', purpose: 'main', stepId, callId } as const;
  const finished = (status: 'ok' | 'error', elapsedMs: number): void =>
    run.emit({ type: 'model_call_finished', ...call, status, elapsedMs });
  run.emit({ type: 'model_call_started', ...call });
  let response: ModelResponse;
  try {
    response = await raceSignals(
      Promise.resolve().then(() => setup.model.complete(request)),
      [run.signal, run.runTimeout],
    );
  } catch (error) {
    if (reservation !== null) run.fuses.release(reservation);
    const code = (error as { code?: unknown } | null)?.code;
    const message = error instanceof Error ? error.message : String(error);
    record(traceOf('error', { error: { code: typeof code === 'string' ? code : 'model_error', message } }), undefined);
    finished('error', run.clock.now() - startedAt);
    throw error;
  }
  const usage = checkedUsage(response?.usage);
  const text = typeof response?.text === 'string' ? response.text : '';
  const toolCalls = Array.isArray(response?.toolCalls) ? response.toolCalls : [];
  const output = {
    text,
    toolCalls,
    ...(typeof response.finishReason === 'string' ? { finishReason: response.finishReason } : {}),
    ...(typeof response.reasoning === 'string' ? { reasoning: response.reasoning } : {}),
  };
  const trace = traceOf('ok', { output, model: response.model ?? model, ...responseTraceFields(response) }, usage);
  record(trace, usage);
  finished('ok', trace.elapsedMs);
  const booking = run.fuses.recordModelUsage(usageShape(usage), { model: response.model ?? model, reservation });
  if (!booking.verdict.allowed) throw budgetStop(run, booking.verdict.reason);
  return { response: { ...response, text, toolCalls }, trace, usage };
}
