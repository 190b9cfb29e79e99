/**
 * The answer a guarded language model gives, without calling the provider, once the run is
 * stopped: a final text (the refusal's note) with no tool calls, so every AI SDK loop —
 * `generateText`, `streamText`, `ToolLoopAgent` — ends by itself. The verdict rides along as
 * `providerMetadata.hyphae`.
 */
import type { GuardRefusal } from '../shared/types.js';

/** The verdict a stopped run's last step carries in `providerMetadata.hyphae`. */
export interface StopVerdictMetadata {
  readonly hyphae: {
    readonly stage: string;
    readonly code: string;
    readonly reason: string;
    readonly terminal: boolean;
  };
}

/** The answer of a refused `doGenerate` call, in the shape a language model returns. */
export interface StopGenerateResult {
  readonly content: readonly { readonly type: 'text'; readonly text: string }[];
  readonly finishReason: { readonly unified: 'stop'; readonly raw: string };
  readonly usage: typeof ZERO_USAGE;
  readonly warnings: readonly never[];
  readonly providerMetadata: StopVerdictMetadata;
}

/** The verdict of `refusal` as provider metadata. */
export function verdictMetadata(refusal: GuardRefusal): StopVerdictMetadata {
  return { hyphae: { stage: refusal.stage, code: refusal.code, reason: refusal.reason, terminal: refusal.terminal } };
}

const ZERO_USAGE = {
  inputTokens: { total: 0, noCache: 0, cacheRead: 0, cacheWrite: 0 } as const,
  outputTokens: { total: 0, text: 0, reasoning: 0 } as const,
} as const;

const FINISH = { unified: 'stop', raw: 'hyphae_stopped' } as const;

/** A `doGenerate` result: the note as text, no usage. */
export function stopGenerateResult(refusal: GuardRefusal): StopGenerateResult {
  return {
    content: [{ type: 'text' as const, text: refusal.message }],
    finishReason: FINISH,
    usage: ZERO_USAGE,
    warnings: [],
    providerMetadata: verdictMetadata(refusal),
  };
}

/** A `doStream` result: the note as one text part, then `finish`. */
export function stopStreamResult(refusal: GuardRefusal): { readonly stream: ReadableStream<unknown> } {
  const id = 'hyphae-stop';
  const parts: unknown[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id },
    { type: 'text-delta', id, delta: refusal.message },
    { type: 'text-end', id },
    { type: 'finish', finishReason: FINISH, usage: ZERO_USAGE, providerMetadata: verdictMetadata(refusal) },
  ];
  return {
    stream: new ReadableStream<unknown>({
      start(controller) {
        for (const part of parts) controller.enqueue(part);
        controller.close();
      },
    }),
  };
}
