/**
 * Telling the three transcript formats apart.
 */
import { arrayArgument, InvalidArgumentError, readArgument } from '../../invalid-argument.js';
import { aiSdkFormat } from './format-ai-sdk.js';
import { anthropicFormat } from './format-anthropic.js';
import { openAiFormat } from './format-openai.js';
import { type FormatAdapter, isObj } from './turns.js';
import type { TranscriptFormat } from './types.js';

const PART_FORMAT: Readonly<Record<string, TranscriptFormat>> = {
  'tool-call': 'ai-sdk',
  'tool-result': 'ai-sdk',
  'tool-approval-request': 'ai-sdk',
  'tool-approval-response': 'ai-sdk',
  tool_use: 'anthropic',
  tool_result: 'anthropic',
  server_tool_use: 'anthropic',
};

function signal(message: unknown): TranscriptFormat | undefined {
  if (!isObj(message)) return undefined;
  if ('tool_calls' in message || 'tool_call_id' in message || message.role === 'developer') return 'openai';
  const { content } = message;
  if (message.role === 'tool') return Array.isArray(content) ? 'ai-sdk' : 'openai';
  if (!Array.isArray(content)) return undefined;
  for (const part of content) {
    const format = isObj(part) && typeof part.type === 'string' ? PART_FORMAT[part.type] : undefined;
    if (format !== undefined) return format;
  }
  return undefined;
}

/**
 * The format of a transcript, from the first message that tells: `tool_calls`, `tool_call_id`, a
 * `developer` role or a `tool` message with string content mean OpenAI; `tool-call`/`tool-result`
 * parts or a `tool` message with array content mean AI SDK; `tool_use`/`tool_result` blocks mean
 * Anthropic. A transcript with no tool traffic reads as OpenAI (pass `format` to be explicit).
 *
 * @example
 * detectTranscriptFormat([{ role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] }]); // 'anthropic'
 */
export function detectTranscriptFormat(messages: readonly unknown[]): TranscriptFormat {
  return detectAs('detectTranscriptFormat', messagesArgument('detectTranscriptFormat', messages));
}

function detectAs(fn: string, messages: readonly unknown[]): TranscriptFormat {
  return readArgument(fn, 'messages', () => {
    for (const message of messages) {
      const format = signal(message);
      if (format !== undefined) return format;
    }
    return 'openai';
  });
}

/** `messages` when it is an array; otherwise throws `InvalidArgumentError` naming `fn`. */
export function messagesArgument<T>(fn: string, messages: readonly T[]): readonly T[] {
  return arrayArgument(fn, 'messages', messages);
}

const ADAPTERS: Readonly<Record<TranscriptFormat, FormatAdapter>> = {
  openai: openAiFormat,
  'ai-sdk': aiSdkFormat,
  anthropic: anthropicFormat,
};

/** The adapter of `format`, or of the detected format of `messages`; `fn` is named in errors. */
export function adapterFor(
  fn: string,
  messages: readonly unknown[],
  format: TranscriptFormat | undefined,
): FormatAdapter {
  const chosen = format ?? detectAs(fn, messages);
  const adapter = typeof chosen === 'string' && Object.hasOwn(ADAPTERS, chosen) ? ADAPTERS[chosen] : undefined;
  if (adapter === undefined) {
    throw new InvalidArgumentError(
      fn,
      'options.format',
      `is \`${String(chosen)}\`, not a transcript format (expected \`openai\`, \`ai-sdk\` or \`anthropic\`)`,
    );
  }
  return adapter;
}
