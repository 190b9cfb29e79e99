/**
 * The response a guarded `@openai/agents` model gives, without a request, to a call the guards
 * refused: a final assistant message (the refusal's note, no tool calls) so `run()` ends with it
 * as `finalOutput`, the verdict in the message's `providerData.hyphae`. Also as a stream.
 */

import { unreadableArgument } from '../../invalid-argument.js';
import type { GuardRefusal } from '../shared/types.js';

/** Zero tokens, in the shape of the SDK's `Usage`. */
interface ZeroUsage {
  readonly requests: 0;
  readonly inputTokens: 0;
  readonly outputTokens: 0;
  readonly totalTokens: 0;
  readonly inputTokensDetails: never[];
  readonly outputTokensDetails: never[];
}

/** The assistant message that answers a refused request. */
interface StopMessage {
  readonly type: 'message';
  readonly role: 'assistant';
  readonly status: 'completed';
  readonly content: { readonly type: 'output_text'; readonly text: string }[];
  readonly providerData: {
    readonly hyphae: {
      readonly stage: string;
      readonly code: string;
      readonly reason: string;
      readonly terminal: boolean;
    };
  };
}

const zeroUsage = (): ZeroUsage => ({
  requests: 0,
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  inputTokensDetails: [],
  outputTokensDetails: [],
});
const RESPONSE_ID = 'hyphae-stopped';

function outputOf(refusal: GuardRefusal): StopMessage[] {
  return [
    {
      type: 'message' as const,
      role: 'assistant' as const,
      status: 'completed' as const,
      content: [{ type: 'output_text' as const, text: refusal.message }],
      providerData: {
        hyphae: { stage: refusal.stage, code: refusal.code, reason: refusal.reason, terminal: refusal.terminal },
      },
    },
  ];
}

/** The `ModelResponse` of a refused call. */
export function stopResponse(refusal: GuardRefusal): {
  readonly usage: ZeroUsage;
  readonly output: StopMessage[];
  readonly responseId: string;
} {
  return { usage: zeroUsage(), output: outputOf(refusal), responseId: RESPONSE_ID };
}

/** The stream events of a refused call: the note as a text delta, then `response_done`. */
export function stopStreamEvents(refusal: GuardRefusal): readonly unknown[] {
  return [
    { type: 'output_text_delta', delta: refusal.message },
    { type: 'response_done', response: { id: RESPONSE_ID, usage: zeroUsage(), output: outputOf(refusal) } },
  ];
}

/** The verdict on a run's final output item, when the guards ended the run. */
export function stoppedVerdictOf(item: unknown): { readonly code: string; readonly stage: string } | undefined {
  try {
    if (typeof item !== 'object' || item === null) return undefined;
    const data = (item as { providerData?: unknown }).providerData;
    const verdict = typeof data === 'object' && data !== null ? (data as { hyphae?: unknown }).hyphae : undefined;
    return typeof verdict === 'object' && verdict !== null ? (verdict as { code: string; stage: string }) : undefined;
  } catch (cause) {
    return unreadableArgument('stoppedVerdictOf', 'item', cause);
  }
}
