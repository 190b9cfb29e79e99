/**
 * `runGuardedToolLoop`: the Chat Completions tool loop with every call going through the pipeline.
 */

import { usedToolCallIds } from '../../boundary/chat.js';
import { GuardError, InvalidOptionError } from '../../errors.js';
import { checkOptions } from '../../invalid-argument.js';
import { integerOption } from '../../option-checks.js';
import { isAbortError } from '../shared/abort.js';
import { formatToolResult } from '../shared/format-result.js';
import type { GuardRefusal, ToolCallOutcome, ToolExecutor } from '../shared/types.js';
import { collectStream, isChunkStream } from './stream.js';
import { type HonouredCall, planTurn, type SkippedCall, skippedNote } from './turn-plan.js';
import type {
  GuardedToolLoopOptions,
  GuardedToolLoopResult,
  GuardedToolLoopStop,
  OpenAiAssistantMessage,
  OpenAiChatCompletion,
  OpenAiChatRequest,
  OpenAiLoopMessage,
  OpenAiMessage,
} from './types.js';

interface LoopSettings {
  readonly maxTurns: number;
  readonly maxParallel: number;
  readonly maxOutputTokens: number;
  readonly terminalFuses: ReadonlySet<string>;
  readonly format: (result: unknown, call: { readonly id: string; readonly name: string }) => string;
}

function count(option: string, value: number | undefined, fallback: number, allowInfinity = false): number {
  if (value === undefined) return fallback;
  return allowInfinity && value === Number.POSITIVE_INFINITY ? value : integerOption(option, value);
}

function settingsOf(options: GuardedToolLoopOptions): LoopSettings {
  if (options.request?.stream !== undefined || options.request?.stream_options !== undefined) {
    throw new InvalidOptionError(
      'request.stream',
      '`request.stream` is not a request field here: pass `stream: true` to the loop',
    );
  }
  return {
    maxTurns: count('maxTurns', options.maxTurns, 10),
    maxParallel: count('maxParallelToolCalls', options.maxParallelToolCalls, Number.POSITIVE_INFINITY, true),
    maxOutputTokens: count('maxOutputTokens', options.maxOutputTokens, 4096),
    terminalFuses: new Set(options.terminalFuses ?? []),
    format: options.formatResult ?? formatToolResult,
  };
}

function requestOf(
  options: GuardedToolLoopOptions,
  settings: LoopSettings,
  messages: readonly OpenAiMessage[],
): OpenAiChatRequest {
  const parallel = settings.maxParallel === 1 && options.request?.parallel_tool_calls === undefined;
  return {
    ...options.request,
    model: options.model,
    messages: [...messages],
    ...(options.tools.length === 0 ? {} : { tools: options.tools }),
    ...(parallel && options.tools.length > 0 ? { parallel_tool_calls: false } : {}),
    max_completion_tokens: settings.maxOutputTokens,
    ...(options.stream === true ? { stream: true, stream_options: { include_usage: true } } : {}),
  };
}

/** One request, pre-flighted against the budget; `null` when the pre-flight refused it (nothing sent). */
async function requestCompletion(
  options: GuardedToolLoopOptions,
  settings: LoopSettings,
  messages: readonly OpenAiMessage[],
): Promise<{ readonly completion: OpenAiChatCompletion } | { readonly refusal: GuardRefusal }> {
  const { guards } = options;
  const gate = guards.checkModelCall({
    model: options.model,
    messages,
    tools: options.tools.length === 0 ? undefined : options.tools,
    maxOutputTokens: settings.maxOutputTokens,
  });
  if (gate.status === 'refused') return { refusal: gate.refusal };
  let completion: OpenAiChatCompletion;
  // Once a stream has sent a chunk the request was answered, at least in part: a failure after
  // that books the reservation in place of the usage it never reported, instead of giving it back.
  let answered = false;
  try {
    const body = requestOf(options, settings, messages);
    const response = await options.client.chat.completions.create(
      body as never,
      options.signal === undefined ? undefined : { signal: options.signal },
    );
    if (isChunkStream(response)) {
      completion = await collectStream(response, options.onChunk, () => {
        answered = true;
      });
    } else {
      completion = response as OpenAiChatCompletion;
    }
  } catch (error) {
    if (answered) guards.recordModelUsage(undefined, gate.reservation);
    else guards.releaseModelCall(gate.reservation);
    throw error;
  }
  guards.recordModelUsage(completion.usage, gate.reservation);
  return { completion };
}

function echo(message: OpenAiAssistantMessage, honoured: readonly HonouredCall[]): OpenAiLoopMessage | null {
  const content = message.content ?? null;
  if (honoured.length === 0) return content === null || content === '' ? null : { role: 'assistant', content };
  return {
    role: 'assistant',
    content,
    tool_calls: honoured.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: call.argsText },
    })),
  };
}

function answerOf(outcome: ToolCallOutcome, call: HonouredCall, settings: LoopSettings, signal?: AbortSignal): string {
  switch (outcome.status) {
    case 'ok':
      return settings.format(outcome.result, { id: call.id, name: call.name });
    case 'refused':
      return outcome.message;
    case 'error':
      if (isAbortError(outcome.error, signal)) throw outcome.error;
      return outcome.message;
  }
}

/**
 * One call through the guards with the loop's executor of its name; a refusal by one of the
 * `terminalFuses` stops the run. After a terminal refusal the run is latched, so the pipeline
 * refuses the siblings itself.
 */
async function guardCall(
  options: GuardedToolLoopOptions,
  settings: LoopSettings,
  call: { readonly id: string; readonly name: string; readonly argsText: string },
): Promise<ToolCallOutcome> {
  const { guards, executors, signal } = options;
  const body = Object.hasOwn(executors, call.name) ? executors[call.name] : undefined;
  const execute: ToolExecutor | undefined =
    body === undefined ? undefined : (args, context) => body(args as never, context);
  const outcome = await guards.executeToolCall(
    { id: call.id, name: call.name, argsText: call.argsText },
    execute,
    signal === undefined ? {} : { abortSignal: signal },
  );
  if (
    outcome.status === 'refused' &&
    outcome.verdict !== undefined &&
    settings.terminalFuses.has(outcome.verdict.fuse)
  ) {
    guards.stop({ ...outcome, terminal: true });
  }
  return outcome;
}

/** Run the honoured calls of a turn in order; a terminal refusal stops the ones after it. */
async function runCalls(
  options: GuardedToolLoopOptions,
  settings: LoopSettings,
  calls: readonly HonouredCall[],
): Promise<OpenAiLoopMessage[]> {
  const answers: OpenAiLoopMessage[] = [];
  for (const call of calls) {
    const outcome = await guardCall(options, settings, call);
    answers.push({ role: 'tool', tool_call_id: call.id, content: answerOf(outcome, call, settings, options.signal) });
  }
  return answers;
}

/**
 * A call whose id the transcript already answers is not echoed again, but it is still the model
 * asking for it on a new turn: it goes through the guards (the ledger returns the recorded result
 * without running the body, and the loop fuse counts the repeat), so a model re-sending one call
 * every turn is stopped like any other loop.
 */
async function recheckAnswered(
  options: GuardedToolLoopOptions,
  settings: LoopSettings,
  skipped: readonly SkippedCall[],
): Promise<void> {
  for (const call of skipped) {
    if (call.why !== 'answered_id' || options.guards.stopped !== null) continue;
    await guardCall(options, settings, call);
  }
}

/**
 * Run a Chat Completions tool loop under a guard run. Before each request the budget pre-flight
 * runs (a refused request is not sent); each tool call goes through the pipeline; only honoured
 * calls are echoed into the transcript, each answered by one tool message with its id (a refusal
 * says the call did NOT happen); calls beyond `maxParallelToolCalls`, redispatched ids and
 * non-function calls are told to the model in a note; a terminal refusal stops the sibling calls
 * of its turn and ends the loop. Aborts and client errors are re-thrown.
 *
 * @example
 * import OpenAI from 'openai';
 * import { createFuseBox, loopFuse } from 'hyphae';
 * import { createGuardPipeline, runGuardedToolLoop } from 'hyphae/openai';
 *
 * const guards = createGuardPipeline({ fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }) })
 *   .forRun({ threadId: 'thread-1', runId: 'run-1' });
 * const result = await runGuardedToolLoop({
 *   client: new OpenAI(),
 *   model: 'gpt-4o-mini',
 *   messages: [{ role: 'user', content: 'Where is order o_7?' }],
 *   tools: [{ type: 'function', function: { name: 'lookup_order', parameters: { type: 'object' } } }],
 *   executors: { lookup_order: async (args: { id: string }) => orders.get(args.id) },
 *   guards,
 *   maxParallelToolCalls: 2,
 * });
 * // result.stopReason: 'completed' | 'max_turns' | 'model_call_refused' | 'stopped'
 */
export async function runGuardedToolLoop<M extends OpenAiMessage>(
  options: GuardedToolLoopOptions<M>,
): Promise<GuardedToolLoopResult<M>> {
  checkOptions('runGuardedToolLoop', options, false);
  const settings = settingsOf(options);
  checkOptions('runGuardedToolLoop', options.guards, false, 'options.guards');
  const { guards } = options;
  const messages: (M | OpenAiLoopMessage)[] =
    options.repairTranscript === false
      ? [...options.messages]
      : guards.repairTranscript(options.messages, { format: 'openai' });
  let turns = 0;
  const finish = (
    stopReason: GuardedToolLoopStop,
    refusal: GuardRefusal | null,
    finalMessage: OpenAiAssistantMessage | null = null,
  ): GuardedToolLoopResult<M> => ({ stopReason, messages, finalMessage, turns, refusal });

  while (turns < settings.maxTurns) {
    const stoppedBy = guards.stopped;
    if (stoppedBy !== null) return finish('stopped', stoppedBy);
    const answer = await requestCompletion(options, settings, messages);
    if ('refusal' in answer) return finish('model_call_refused', answer.refusal);
    turns++;
    const message = answer.completion.choices[0]?.message;
    if (message === undefined) throw new GuardError('invalid_response', 'The chat completion has no choices');
    const calls = message.tool_calls ?? [];
    if (calls.length === 0) {
      messages.push({ role: 'assistant', content: message.content ?? '' });
      return finish('completed', null, message);
    }
    const plan = planTurn(calls, usedToolCallIds(messages), settings.maxParallel);
    const echoed = echo(message, plan.honoured);
    if (echoed !== null) messages.push(echoed);
    messages.push(...(await runCalls(options, settings, plan.honoured)));
    await recheckAnswered(options, settings, plan.skipped);
    if (plan.skipped.length > 0) {
      messages.push({ role: 'system', content: skippedNote(plan.skipped, settings.maxParallel) });
    }
  }
  const stoppedBy = guards.stopped;
  return stoppedBy === null ? finish('max_turns', null) : finish('stopped', stoppedBy);
}
