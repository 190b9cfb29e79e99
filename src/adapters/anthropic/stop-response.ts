/**
 * The response a guarded client gives, without sending the request, to a model call the guards
 * refused (a stopped run, the budget): a final assistant message (`end_turn`, the refusal's note,
 * no tool use), so a tool runner ends with it and a hand-written loop sees a turn without tool use.
 * The verdict is on the message, in `hyphae`. As JSON, or as the Messages SSE stream when the
 * request asked for one.
 */
import { unreadableArgument } from '../../invalid-argument.js';
import type { GuardRefusal } from '../shared/types.js';

/** The `id` prefix of a message the guards wrote in place of a model request. */
export const STOP_MESSAGE_PREFIX = 'msg_hyphae_refused_';

const zeroUsage = {
  input_tokens: 0,
  output_tokens: 0,
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
} as const;

function stopMessage(refusal: GuardRefusal, model: string, sequence: number) {
  return {
    id: `${STOP_MESSAGE_PREFIX}${sequence}`,
    type: 'message',
    role: 'assistant',
    model,
    content: [{ type: 'text', text: refusal.message }],
    stop_reason: 'end_turn',
    stop_sequence: null,
    usage: zeroUsage,
    hyphae: { stage: refusal.stage, code: refusal.code, reason: refusal.reason, terminal: refusal.terminal },
  };
}

function event(type: string, data: unknown): string {
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** The HTTP response that answers a refused request: the stop message, streamed when `stream` is true. */
export function stopResponse(refusal: GuardRefusal, model: string, stream: boolean, sequence: number): Response {
  const message = stopMessage(refusal, model, sequence);
  const headers = { 'request-id': message.id };
  if (!stream) {
    return new Response(JSON.stringify(message), {
      status: 200,
      headers: { ...headers, 'content-type': 'application/json' },
    });
  }
  const text = [
    event('message_start', { type: 'message_start', message: { ...message, content: [], stop_reason: null } }),
    event('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    event('content_block_delta', {
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'text_delta', text: refusal.message },
    }),
    event('content_block_stop', { type: 'content_block_stop', index: 0 }),
    event('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { output_tokens: 0 },
    }),
    event('message_stop', { type: 'message_stop' }),
  ].join('');
  return new Response(text, { status: 200, headers: { ...headers, 'content-type': 'text/event-stream' } });
}

/** The verdict on a message a guarded client wrote in place of a model request. */
export interface AnthropicStopVerdict {
  readonly stage: string;
  readonly code: string;
  readonly reason: string;
  readonly terminal: boolean;
}

/**
 * The verdict on `message` (a reply of a guarded client: a tool runner's final message, a
 * `messages.create` reply) when the guards wrote it in place of a model request, else undefined.
 */
export function stoppedVerdictOf(message: unknown): AnthropicStopVerdict | undefined {
  try {
    if (typeof message !== 'object' || message === null) return undefined;
    const { id, hyphae } = message as { id?: unknown; hyphae?: unknown };
    if (typeof id !== 'string' || !id.startsWith(STOP_MESSAGE_PREFIX)) return undefined;
    return typeof hyphae === 'object' && hyphae !== null ? (hyphae as AnthropicStopVerdict) : undefined;
  } catch (cause) {
    return unreadableArgument('stoppedVerdictOf', 'message', cause);
  }
}
