/**
 * The answer that stands in for a model request the guards refused: a final assistant step (the
 * refusal's note as its text, no tool calls, `finishReason: 'stop'`), which `processLLMRequest`
 * returns as its `response` so Mastra replays it instead of calling the model, and the run ends
 * with it. The verdict rides along as the step's `providerMetadata.hyphae`.
 */
import { unreadableArgument } from '../../invalid-argument.js';
import type { GuardRefusal } from '../shared/types.js';
import type { MastraStopResponse, MastraStopVerdict } from './types.js';

/** The id of the stop answer's text part and of its response. */
const STOP_ID = 'hyphae-stopped';

function verdictOf(refusal: GuardRefusal): MastraStopVerdict {
  return { stage: refusal.stage, code: refusal.code, reason: refusal.reason, terminal: refusal.terminal };
}

/** The answer of a refused request, as the stream chunks Mastra replays in place of the model's. */
export function stopResponse(refusal: GuardRefusal): MastraStopResponse {
  return {
    chunks: [
      { type: 'response-metadata', payload: { id: STOP_ID } },
      { type: 'text-start', payload: { id: STOP_ID } },
      { type: 'text-delta', payload: { id: STOP_ID, text: refusal.message } },
      { type: 'text-end', payload: { id: STOP_ID } },
      {
        type: 'finish',
        payload: {
          stepResult: { reason: 'stop', rawReason: STOP_ID },
          output: { usage: { inputTokens: 0, outputTokens: 0, totalTokens: 0 } },
          metadata: { providerMetadata: { hyphae: verdictOf(refusal) } },
          messages: { all: [], user: [], nonUser: [] },
        },
      },
    ],
  };
}

/**
 * The verdict of a run the guards stopped: from the result of `agent.generate()`, of a stream's
 * `await output.getFullOutput()`, or from its last step (its `providerMetadata.hyphae`).
 * `undefined` when the guards did not stop the run.
 *
 * @example
 * const result = await agent.generate('Pay invoice 42', { requestContext });
 * const verdict = stoppedVerdictOf(result); // { code: 'loop_repeat', stage: 'fuses', … } | undefined
 * // result.text is the note the run ended with
 */
export function stoppedVerdictOf(result: unknown): MastraStopVerdict | undefined {
  try {
    if (typeof result !== 'object' || result === null) return undefined;
    const metadata = (result as { providerMetadata?: unknown }).providerMetadata;
    if (typeof metadata !== 'object' || metadata === null) return undefined;
    const verdict = (metadata as { hyphae?: unknown }).hyphae;
    if (typeof verdict !== 'object' || verdict === null) return undefined;
    return typeof (verdict as { code?: unknown }).code === 'string' ? (verdict as MastraStopVerdict) : undefined;
  } catch (cause) {
    return unreadableArgument('stoppedVerdictOf', 'result', cause);
  }
}
