/**
 * Model context policies: what the model is shown of the run's transcript before each call.
 */
import type { ModelMessage } from '../models/types.js';

/** What a policy knows about the call it prepares. */
export interface ContextPolicyInfo {
  readonly runId: string;
  /** The main-model call about to be made (1-based). */
  readonly step: number;
  /** Main-model calls made so far. */
  readonly modelCalls: number;
  /** Index of the run prompt in the transcript (the system message is at 0). */
  readonly runPromptIndex: number;
}

/**
 * Runs before every main-model call on the full transcript and returns the messages to send.
 * The result is checked: the system message must come first and the run prompt must be kept
 * unchanged, and every assistant tool call must be immediately followed by its results (one per
 * call, in order); otherwise the run fails with `ContextPolicyError`. The full transcript is
 * kept by the harness; a policy only shapes what one call sees.
 *
 * @example
 * const keepLastTen: ModelContextPolicy = {
 *   name: 'drop-old-history',
 *   apply: (messages, info) => [messages[0], ...messages.slice(1, info.runPromptIndex).slice(-10), ...messages.slice(info.runPromptIndex)],
 * };
 */
export interface ModelContextPolicy {
  readonly name: string;
  apply(
    messages: readonly ModelMessage[],
    info: ContextPolicyInfo,
  ): readonly ModelMessage[] | Promise<readonly ModelMessage[]>;
}
