/**
 * `hyphaeMiddleware`: a `wrapLanguageModel` middleware at the provider boundary. `transformParams`
 * repairs the prompt and runs the budget pre-flight; `wrapGenerate` and `wrapStream` book the
 * call's real usage in place of its reservation.
 */

import { checkArguments } from '../../invalid-argument.js';
import type { GuardRun, ModelCallGate } from '../shared/run-types.js';
import { stopGenerateResult, stopStreamResult } from './stop-answer.js';

/** The call options of a language model, as far as the middleware reads them. */
export interface AiSdkCallParams {
  readonly prompt: readonly unknown[];
  readonly maxOutputTokens?: number | undefined;
  readonly tools?: readonly unknown[] | undefined;
}

/** What the middleware reads of the model. */
export interface AiSdkModelInfo {
  readonly modelId: string;
}

/** A `LanguageModelV4Middleware`, declared structurally. */
export interface HyphaeLanguageModelMiddleware {
  readonly specificationVersion: 'v4';
  transformParams<P extends AiSdkCallParams>(options: {
    readonly type: 'generate' | 'stream';
    readonly params: P;
    readonly model: AiSdkModelInfo;
  }): Promise<P>;
  wrapGenerate<R extends { readonly usage?: unknown }>(options: {
    readonly doGenerate: () => PromiseLike<R>;
    readonly params: object;
    readonly model: AiSdkModelInfo;
  }): Promise<R>;
  wrapStream<R extends { readonly stream: ReadableStream<unknown> }>(options: {
    readonly doStream: () => PromiseLike<R>;
    readonly params: object;
    readonly model: AiSdkModelInfo;
  }): Promise<R>;
}

/** Options of {@link hyphaeMiddleware}. */
export interface HyphaeMiddlewareOptions {
  /** Repair the prompt (orphan results, unanswered calls, duplicate ids) before each call. Default true. */
  readonly repairTranscript?: boolean;
}

/**
 * Book the usage of a streamed call when its `finish` part passes; a stream that ends, fails or is
 * cancelled without one books its reservation (the tokens may have been spent).
 */
function bookingStream(source: ReadableStream<unknown>, book: (usage: unknown) => void): ReadableStream<unknown> {
  const reader = source.getReader();
  let booked = false;
  const settle = (usage: unknown): void => {
    if (booked) return;
    booked = true;
    book(usage);
  };
  return new ReadableStream<unknown>({
    async pull(controller) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        settle(undefined);
        controller.error(error);
        return;
      }
      if (next.done) {
        settle(undefined);
        controller.close();
        return;
      }
      const part = next.value as { type?: unknown; usage?: unknown } | null;
      if (part?.type === 'finish') settle(part.usage);
      controller.enqueue(next.value);
    },
    cancel(reason) {
      settle(undefined);
      return reader.cancel(reason);
    },
  });
}

/**
 * A language-model middleware for `wrapLanguageModel`. Before each call the prompt is repaired
 * (when it needs it) and the budget pre-flight runs on the repaired prompt and the tool schemas;
 * under a budget, a call without `maxOutputTokens` gets the cap its estimate assumed, so the
 * estimate is an upper bound. A refused call (a stopped run, a call the budget cannot fit) is
 * not sent: it is answered with a final text — the note of the refusal that stopped the run, no
 * tool calls, the verdict in `providerMetadata.hyphae` — so the AI SDK's loop ends by itself.
 * After the call, its real usage is booked; a failed call gives its reservation back.
 *
 * @example
 * import { wrapLanguageModel } from 'ai';
 * import { hyphaeMiddleware } from 'hyphae/ai-sdk';
 *
 * const guardedModel = wrapLanguageModel({ model, middleware: hyphaeMiddleware(guards) });
 */
export function hyphaeMiddleware(
  guards: GuardRun,
  options: HyphaeMiddlewareOptions = {},
): HyphaeLanguageModelMiddleware {
  checkArguments('hyphaeMiddleware', { guards, options });
  const repair = options.repairTranscript !== false;
  // The gate of each transformed call, found again by the params object the SDK hands back.
  const gates = new WeakMap<object, ModelCallGate>();
  const reservationOf = (gate: ModelCallGate | undefined) => (gate?.status === 'allowed' ? gate.reservation : null);
  // A failed provider call books nothing: its reservation is released.
  const releasingOnError = <T>(call: () => PromiseLike<T>, reservation: ReturnType<typeof reservationOf>) =>
    call().then(
      (value) => value,
      (error: unknown) => {
        guards.releaseModelCall(reservation);
        throw error;
      },
    );

  return {
    specificationVersion: 'v4',
    async transformParams({ params, model }) {
      const prompt = repair ? guards.repairTranscript(params.prompt, { format: 'ai-sdk' }) : params.prompt;
      const gate = guards.checkModelCall({
        model: model.modelId,
        messages: prompt,
        tools: params.tools,
        maxOutputTokens: params.maxOutputTokens,
      });
      // A refused call is answered in `wrapGenerate`/`wrapStream` without calling the provider.
      // Under a budget, an uncapped call gets the cap its reservation assumed.
      const capped = gate.status === 'allowed' && gate.reservation !== null && params.maxOutputTokens === undefined;
      const next = (
        capped ? { ...params, prompt, maxOutputTokens: gate.maxOutputTokens } : { ...params, prompt }
      ) as typeof params;
      gates.set(next, gate);
      return next;
    },
    async wrapGenerate({ doGenerate, params }) {
      const gate = gates.get(params);
      if (gate?.status === 'refused') return stopGenerateResult(guards.stopped ?? gate.refusal) as never;
      const reservation = reservationOf(gate);
      const result = await releasingOnError(doGenerate, reservation);
      guards.recordModelUsage(result.usage, reservation);
      return result;
    },
    async wrapStream({ doStream, params }) {
      const gate = gates.get(params);
      if (gate?.status === 'refused') return stopStreamResult(guards.stopped ?? gate.refusal) as never;
      const reservation = reservationOf(gate);
      const result = await releasingOnError(doStream, reservation);
      const stream = bookingStream(result.stream, (usage) => guards.recordModelUsage(usage, reservation));
      return { ...result, stream };
    },
  };
}
