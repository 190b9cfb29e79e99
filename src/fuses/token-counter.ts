/**
 * Token counting for the budget fuse's pre-flight estimate.
 *
 * OpenAI model names are counted with `gpt-tokenizer` (o200k_base, or cl100k_base for the GPT-4 and
 * GPT-3.5 families); every other model is estimated at four characters a token. The tokenizer is
 * loaded lazily and synchronously, through the shared loader of `core/gpt-tokenizer.ts`, the first time an OpenAI model is
 * counted: importing hyphae never loads it, and a count is the same whenever it is taken (an
 * asynchronous preload with a fallback would make the estimate depend on timing, and so the gate).
 * The package ships CommonJS builds under its `./*` export, so `require` is supported. Loading the
 * o200k ranks takes about a second once per process; call {@link preloadTokenizer} at start-up to
 * pay it there.
 */
import { type GptEncoding, loadGptEncoding } from '../core/gpt-tokenizer.js';
import { type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';
import { stringArgument } from '../invalid-argument.js';

/** Counts the tokens of `text` as `model` would. Must return a finite, non-negative number. */
export type TokenCounter = (text: string, model: string) => number;

const OPENAI_ENCODINGS = ['o200k_base', 'cl100k_base'] as const;
/** The BPE encodings the default counter uses. */
export const OpenAiEncoding: Vocabulary<typeof OPENAI_ENCODINGS> = vocabulary(OPENAI_ENCODINGS);
/** The BPE encodings the default counter uses. */
export type OpenAiEncoding = ValueOf<typeof OpenAiEncoding>;

// Text such as `<|endoftext|>` in a message is counted as plain text rather than rejected.
const PLAIN_TEXT = Object.freeze({ disallowedSpecial: new Set<string>() });
const encoders = new Map<OpenAiEncoding, GptEncoding | null>();

/** Four characters a token: the estimate for models whose tokenizer we do not ship. */
export const approximateTokenCounter: TokenCounter = function approximateTokenCounter(text) {
  stringArgument('approximateTokenCounter', 'text', text);
  return Math.ceil(text.length / 4);
};

/**
 * The encoding of an OpenAI model name (`gpt-*`, `o1`/`o3`/`o4*`, `chatgpt-*`, an `openai/` prefix
 * allowed), or `null` for any other model.
 *
 * @example
 * openAiEncodingFor('gpt-4o-mini'); // 'o200k_base'
 * openAiEncodingFor('gpt-4-turbo'); // 'cl100k_base'
 * openAiEncodingFor('claude-sonnet-4'); // null
 */
export function openAiEncodingFor(model: string): OpenAiEncoding | null {
  stringArgument('openAiEncodingFor', 'model', model);
  const name = model.toLowerCase().replace(/^openai\//, '');
  if (/^(gpt-3\.5|gpt-4)(-|$)/.test(name) || name.startsWith('text-embedding-')) return OpenAiEncoding.cl100k_base;
  if (/^(gpt-|chatgpt-|o[134](-|$))/.test(name)) return OpenAiEncoding.o200k_base;
  return null;
}

function loadEncoder(encoding: OpenAiEncoding): GptEncoding | null {
  if (encoders.has(encoding)) return encoders.get(encoding) ?? null;
  let encoder: GptEncoding | null = null;
  try {
    encoder = loadGptEncoding(encoding);
  } catch {
    // Not installed or not loadable: the character estimate stands in (the same for every call).
    encoder = null;
  }
  encoders.set(encoding, encoder);
  return encoder;
}

/**
 * Load the tokenizer `model` needs now rather than on the first budget check; returns whether a
 * BPE tokenizer is in use for it (false: the four-characters estimate applies).
 *
 * @example
 * preloadTokenizer('gpt-4o'); // true, after about a second
 */
export function preloadTokenizer(model: string): boolean {
  stringArgument('preloadTokenizer', 'model', model);
  const encoding = openAiEncodingFor(model);
  return encoding !== null && loadEncoder(encoding) !== null;
}

/**
 * The default counter: gpt-tokenizer for OpenAI models, four characters a token otherwise.
 *
 * @example
 * defaultTokenCounter('hello world', 'gpt-4o'); // 2
 * defaultTokenCounter('hello world', 'claude-sonnet-4'); // 3
 */
export const defaultTokenCounter: TokenCounter = function defaultTokenCounter(text, model) {
  stringArgument('defaultTokenCounter', 'text', text);
  stringArgument('defaultTokenCounter', 'model', model);
  const encoding = openAiEncodingFor(model);
  const encoder = encoding === null ? null : loadEncoder(encoding);
  return encoder === null ? approximateTokenCounter(text, model) : encoder.countTokens(text, PLAIN_TEXT);
};
