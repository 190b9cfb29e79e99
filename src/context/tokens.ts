/**
 * Pluggable token counting: a chars/4 estimate, and a `gpt-tokenizer` counter for OpenAI models
 * that loads its encodings lazily (never when the root entry is imported).
 */
import { type GptEncoding, loadGptEncoding, loadGptModelMapping } from '../core/gpt-tokenizer.js';
import { arrayArgument, InvalidArgumentError, kindOf, optionsOf, unreadableArgument } from '../invalid-argument.js';

/** Counts tokens of text and of whole chat histories. */
export interface MessageTokenCounter {
  /** Counter name, for events and reports. */
  readonly name: string;
  /** Tokens of `text` for `model` (the counter's default model when omitted). */
  count(text: string, model?: string): number;
  /** Tokens of a history in any supported message format, including per-message overhead. */
  countMessages(messages: readonly unknown[], model?: string): number;
}

// OpenAI's published accounting: every message costs 3 tokens of framing, the reply 3 more.
const PER_MESSAGE = 3;
const PER_REPLY = 3;

function json(value: unknown): string {
  try {
    return JSON.stringify(value) ?? '';
  } catch {
    return '';
  }
}

function partText(part: unknown): string {
  if (typeof part === 'string') return part;
  if (typeof part !== 'object' || part === null) return '';
  const p = part as Record<string, unknown>;
  if (typeof p.text === 'string') return p.text;
  switch (p.type) {
    case 'tool-call':
      return `${String(p.toolName)} ${json(p.input)} ${String(p.toolCallId)}`;
    case 'tool_use':
      return `${String(p.name)} ${json(p.input)} ${String(p.id)}`;
    case 'tool-result': {
      const output = p.output as { value?: unknown } | undefined;
      const value = output?.value;
      return `${String(p.toolCallId)} ${typeof value === 'string' ? value : json(value)}`;
    }
    case 'tool_result':
      return `${String(p.tool_use_id)} ${contentText(p.content)}`;
    default:
      return json(part);
  }
}

function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return content === null || content === undefined ? '' : json(content);
  let text = '';
  for (const part of content) text += `${partText(part)}\n`;
  return text;
}

/** The text a model reads for one message of any supported format (role, content, tool calls). */
export function messageText(message: unknown): string {
  try {
    if (typeof message !== 'object' || message === null) return json(message);
    const m = message as Record<string, unknown>;
    let text = `${String(m.role)}\n${contentText(m.content)}`;
    if (typeof m.name === 'string') text += `\n${m.name}`;
    if (typeof m.tool_call_id === 'string') text += `\n${m.tool_call_id}`;
    if (Array.isArray(m.tool_calls)) {
      for (const call of m.tool_calls as { id?: unknown; function?: { name?: unknown; arguments?: unknown } }[]) {
        text += `\n${String(call?.id)} ${String(call?.function?.name)} ${String(call?.function?.arguments)}`;
      }
    }
    return text;
  } catch (cause) {
    return unreadableArgument('messageText', 'message', cause);
  }
}

/** Sum `count` over a history, with OpenAI's per-message and reply overhead. */
export function countHistoryTokens(messages: readonly unknown[], count: (text: string) => number): number {
  arrayArgument('countHistoryTokens', 'messages', messages);
  if (typeof count !== 'function') {
    throw new InvalidArgumentError('countHistoryTokens', 'count', `must be a function, got ${kindOf(count)}`);
  }
  let total = PER_REPLY;
  for (const message of messages) total += PER_MESSAGE + count(messageText(message));
  return total;
}

/**
 * A counter that estimates one token per `charsPerToken` characters (default 4), for models
 * without a local tokenizer.
 *
 * @example
 * createCharTokenCounter().count('hello world'); // 3
 */
export function createCharTokenCounter(given: { readonly charsPerToken?: number } = {}): MessageTokenCounter {
  const options = optionsOf('createCharTokenCounter', given, true);
  const per = options.charsPerToken ?? 4;
  if (!(Number.isFinite(per) && per > 0)) {
    throw new InvalidArgumentError(
      'createCharTokenCounter',
      'options.charsPerToken',
      `must be a positive number, got \`${per}\``,
    );
  }
  const count = (text: string): number => Math.ceil(text.length / per);
  return Object.freeze({
    name: `chars/${per}`,
    count: (text: string) => count(text),
    countMessages: (messages: readonly unknown[]) => countHistoryTokens(messages, count),
  });
}

/** The default counter: one token per four characters. */
export const charTokenCounter: MessageTokenCounter = createCharTokenCounter();

/**
 * Adapt a plain `(text, model) => number` count function — such as the budget fuse's counter — to a
 * {@link MessageTokenCounter}, so one tokenizer can serve both.
 *
 * @example
 * const counter = tokenCounterFromFunction('fuse', (text, model) => countWithMyTokenizer(text, model), 'gpt-4o');
 */
export function tokenCounterFromFunction(
  name: string,
  count: (text: string, model: string) => number,
  defaultModel: string,
): MessageTokenCounter {
  return Object.freeze({
    name,
    count: (text: string, model?: string) => count(text, model ?? defaultModel),
    countMessages: (messages: readonly unknown[], model?: string) =>
      countHistoryTokens(messages, (text) => count(text, model ?? defaultModel)),
  });
}

// Text that merely contains `<|endoftext|>` is counted as text instead of throwing.
const AS_TEXT = Object.freeze({ disallowedSpecial: new Set<string>() });

const OPENAI_MODEL = /^(?:gpt-|chatgpt-|o\d|text-embedding-|davinci|babbage|codex-|ft:gpt-)/;

/** The model name without a provider prefix (`openai/gpt-4o` → `gpt-4o`), or null when not OpenAI's. */
function openAiModel(model: string): string | null {
  const lower = model.toLowerCase();
  const bare = lower.startsWith('openai/') ? lower.slice('openai/'.length) : lower;
  return OPENAI_MODEL.test(bare) ? bare : null;
}

/** Options of {@link createGptTokenCounter}. */
export interface GptTokenCounterOptions {
  /** Model assumed when a call names none. Default `gpt-4o`. */
  readonly defaultModel?: string;
  /** Counter for models that are not OpenAI's. Default {@link charTokenCounter}. */
  readonly fallback?: MessageTokenCounter;
}

/**
 * A counter backed by `gpt-tokenizer` for OpenAI models (the encoding follows the model:
 * `o200k_base` for gpt-4o/4.1/5 and the o-series, `cl100k_base` for gpt-4 and gpt-3.5) and by
 * `fallback` for every other model. Encodings load synchronously on first use.
 *
 * @example
 * const counter = createGptTokenCounter();
 * counter.count('hello world', 'gpt-4o'); // 2
 * counter.count('hello world', 'claude-sonnet-4'); // 3 (chars/4)
 */
export function createGptTokenCounter(given: GptTokenCounterOptions = {}): MessageTokenCounter {
  const options = optionsOf('createGptTokenCounter', given, true);
  const defaultModel = options.defaultModel ?? 'gpt-4o';
  const fallback = options.fallback ?? charTokenCounter;

  function encodingFor(model: string): GptEncoding {
    const mapping = loadGptModelMapping();
    const listed = mapping.modelToEncodingMap[model];
    const name = listed !== undefined && mapping.encodingNames.includes(listed) ? listed : mapping.DEFAULT_ENCODING;
    return loadGptEncoding(name);
  }

  function counterFor(model: string | undefined): ((text: string) => number) | null {
    const bare = openAiModel(model ?? defaultModel);
    if (bare === null) return null;
    const encoding = encodingFor(bare);
    return (text) => encoding.countTokens(text, AS_TEXT);
  }

  return Object.freeze({
    name: 'gpt-tokenizer',
    count(text: string, model?: string): number {
      const count = counterFor(model);
      return count === null ? fallback.count(text, model) : count(text);
    },
    countMessages(messages: readonly unknown[], model?: string): number {
      const count = counterFor(model);
      return count === null ? fallback.countMessages(messages, model) : countHistoryTokens(messages, count);
    },
  });
}
