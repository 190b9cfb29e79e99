/**
 * How a run the guards stopped ends in LangChain and LangGraph: a final `AIMessage` without tool
 * calls (so the agent or graph ends by its own routing), whose text is the refusal's note and
 * whose `response_metadata.hyphae` carries the verdict.
 */
import { AIMessage } from '@langchain/core/messages';
import { unreadableArgument } from '../../invalid-argument.js';
import type { GuardRefusal } from '../shared/types.js';
import type { LangChainMessage } from './types.js';

/** The verdict a stopped run's final message carries in `response_metadata.hyphae`. */
export interface StoppedRunVerdict {
  readonly stage: string;
  readonly code: string;
  readonly reason: string;
  readonly terminal: boolean;
}

/** The verdict of `refusal`, as plain data. */
export function verdictOf(refusal: GuardRefusal): StoppedRunVerdict {
  return { stage: refusal.stage, code: refusal.code, reason: refusal.reason, terminal: refusal.terminal };
}

/** The final answer of a stopped run (or of a model call the guards refused). */
export function stopAnswer(refusal: GuardRefusal, text: string): LangChainMessage {
  return new AIMessage({ content: text, response_metadata: { hyphae: verdictOf(refusal) } });
}

/** The verdict on a message `stopAnswer` made, or `undefined`. */
export function stoppedVerdictOf(message: unknown): StoppedRunVerdict | undefined {
  try {
    if (typeof message !== 'object' || message === null) return undefined;
    const metadata = (message as { response_metadata?: unknown }).response_metadata;
    if (typeof metadata !== 'object' || metadata === null) return undefined;
    const verdict = (metadata as { hyphae?: unknown }).hyphae;
    return typeof verdict === 'object' && verdict !== null ? (verdict as StoppedRunVerdict) : undefined;
  } catch (cause) {
    return unreadableArgument('stoppedVerdictOf', 'message', cause);
  }
}
