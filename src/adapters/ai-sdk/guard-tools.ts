/**
 * `guardTools`: AI SDK tools whose `execute` runs through the guard pipeline. Everything else of a
 * tool (`inputSchema`, `outputSchema`, `toModelOutput`, `description`, …) is kept as it is.
 */
import { GuardError } from '../../errors.js';
import { checkArguments } from '../../invalid-argument.js';
import { isAbortError } from '../shared/abort.js';
import { ToolCallFailedError, ToolCallRefusedError } from '../shared/errors.js';
import type { GuardRun } from '../shared/run-types.js';
import type { ToolCallOutcome } from '../shared/types.js';
import { createChannel } from './channel.js';

/** An AI SDK tool as `guardTools` sees it (typed structurally: no `ai` types in our declarations). */
export interface AiSdkToolLike {
  readonly execute?: ((input: never, options: never) => unknown) | undefined;
  readonly type?: string | undefined;
  readonly isProviderExecuted?: boolean | undefined;
}

/** What the AI SDK passes to `execute`: the call id and abort signal are what the guards use. */
interface ExecutionOptions {
  readonly toolCallId?: string;
  readonly abortSignal?: AbortSignal;
}

type Execute = (input: unknown, options: ExecutionOptions) => unknown;

function isAsyncIterable(value: unknown): value is AsyncIterable<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

function isAsyncGeneratorFunction(fn: unknown): boolean {
  return Object.prototype.toString.call(fn) === '[object AsyncGeneratorFunction]';
}

/** The final value of a body: awaited, or the last value an iterable yielded. */
async function drain(value: unknown, onValue?: (value: unknown) => void): Promise<unknown> {
  if (!isAsyncIterable(value)) return value;
  let last: unknown;
  for await (const part of value) {
    last = part;
    onValue?.(part);
  }
  return last;
}

/** The result of an outcome, or what the AI SDK should turn into a `tool-error` with the same call id. */
function unwrap(name: string, options: ExecutionOptions, outcome: ToolCallOutcome): unknown {
  switch (outcome.status) {
    case 'ok':
      return outcome.result;
    case 'refused':
      throw new ToolCallRefusedError(name, options.toolCallId, outcome);
    case 'error': {
      const { error } = outcome;
      // Aborts and the tool's own errors go back as they are; a guard's explanation is wrapped.
      if (isAbortError(error, options.abortSignal)) throw error;
      if (error instanceof GuardError && error.llmMessage !== undefined) {
        throw new ToolCallFailedError(name, options.toolCallId, outcome);
      }
      throw error;
    }
  }
}

function callOf(name: string, input: unknown, options: ExecutionOptions) {
  return { id: options.toolCallId, name, args: input };
}

function guardExecute(name: string, original: Execute, guards: GuardRun): Execute {
  if (!isAsyncGeneratorFunction(original)) {
    return async function guardedExecute(input, options = {}) {
      const outcome = await guards.executeToolCall(
        callOf(name, input, options),
        (args) => drain(original(args, options)),
        { abortSignal: options.abortSignal },
      );
      return unwrap(name, options, outcome);
    };
  }
  // A streaming tool: preliminary results flow out while the guarded body runs; a replayed call
  // (the ledger's stored result) yields its final result once.
  return async function* guardedStream(input, options = {}) {
    const channel = createChannel<unknown>();
    const settled = guards.executeToolCall(
      callOf(name, input, options),
      (args) => drain(original(args, options), (part) => channel.push(part)),
      { abortSignal: options.abortSignal },
    );
    settled.then(channel.close, channel.close);
    let yielded = false;
    let last: unknown;
    for await (const part of channel) {
      yielded = true;
      last = part;
      yield part;
    }
    const result = unwrap(name, options, await settled);
    // The output schema may have transformed the last value; the AI SDK takes the last yield as final.
    if (!yielded || !Object.is(last, result)) yield result;
  };
}

/**
 * Wrap each tool's `execute` so the call runs through the guard pipeline with the AI SDK's
 * `toolCallId` as the ledger ticket. A refused call throws {@link ToolCallRefusedError}, which the
 * AI SDK turns into a `tool-error` result with the same call id (the model reads that the call did
 * NOT happen); the tool's own errors and aborts are re-thrown as they are. An async-generator
 * `execute` keeps streaming its preliminary results. Tools without `execute` and provider-executed
 * tools are returned unchanged; the input object is not mutated.
 *
 * @example
 * import { generateText, isStepCount, tool, wrapLanguageModel } from 'ai';
 * import { z } from 'zod';
 * import { createGuardPipeline, guardTools, hyphaeMiddleware, hyphaeStopWhen } from 'hyphae/ai-sdk';
 *
 * const guards = createGuardPipeline({ ledger, fuses }).forRun({ threadId: 'thread-1', runId: 'run-1' });
 * const result = await generateText({
 *   model: wrapLanguageModel({ model, middleware: hyphaeMiddleware(guards) }),
 *   tools: guardTools({ lookup: tool({ inputSchema: z.object({ id: z.string() }), execute: lookup }) }, guards),
 *   stopWhen: [isStepCount(10), hyphaeStopWhen(guards)],
 *   prompt: 'Where is order o_7?',
 * });
 */
export function guardTools<T extends Readonly<Record<string, AiSdkToolLike>>>(tools: T, guards: GuardRun): T {
  checkArguments('guardTools', { tools, guards });
  const guarded: Record<string, AiSdkToolLike> = {};
  for (const [name, tool] of Object.entries(tools)) {
    const execute = tool.execute;
    if (typeof execute !== 'function' || tool.isProviderExecuted === true) {
      guarded[name] = tool;
      continue;
    }
    guarded[name] = { ...tool, execute: guardExecute(name, execute as Execute, guards) };
  }
  return guarded as T;
}
