/**
 * A model call as the budget fuse sees it, and the measurement that turns it into recorded facts:
 * the token counts are measured once, logged, and the gate is a pure function of them (a replay
 * gates the logged counts; it does not re-tokenise the transcript).
 */

import { recordArgument } from '../invalid-argument.js';
import type { TokenCounter } from './token-counter.js';
import { errorMessage } from './verdict.js';

/** A model call about to be made. */
export interface ModelCallInput {
  readonly model: string;
  /** The transcript in any provider's shape; message objects with a string `content` count best. */
  readonly messages: readonly unknown[];
  /** Tool definitions sent with the call; counted from their JSON. */
  readonly tools?: unknown;
  /** The completion cap; the estimate reserves all of it. */
  readonly maxOutputTokens: number;
  /**
   * Prompt tokens already known without counting (a framework that sends the calls itself: the
   * previous call's booked input and output), added to the counted `messages`. Default 0.
   */
  readonly knownPromptTokens?: number;
}

/** Measured facts of a model call: what the gate decides on. */
export interface ModelCallFacts {
  readonly model: string;
  readonly promptTokens: number;
  readonly toolTokens: number;
  readonly maxOutputTokens: number;
}

/** A model call that could not be measured: bad input, or a token counter that failed. */
export interface ModelCallFault {
  readonly model: string;
  readonly fault: 'invalid_request' | 'counter_failed';
  readonly message: string;
}

/** Either the facts of a call or why it has none. */
export type ModelCallRequest = ModelCallFacts | ModelCallFault;

/** True when the request could not be measured. */
export function isModelCallFault(request: ModelCallRequest): request is ModelCallFault {
  return 'fault' in request;
}

// OpenAI's documented chat framing: about 3 tokens per message plus 3 to prime the reply; 4 is
// kept per message so that names and separators are covered too.
const TOKENS_PER_MESSAGE = 4;
const REPLY_PRIMING_TOKENS = 3;

function messageText(message: unknown): string {
  if (typeof message === 'string') return message;
  if (message !== null && typeof message === 'object') {
    const { role, content, ...rest } = message as { role?: unknown; content?: unknown };
    if (typeof content === 'string' && Object.keys(rest).length === 0) {
      return typeof role === 'string' ? `${role}\n${content}` : content;
    }
  }
  // Parts, tool calls and anything else are counted from their JSON: an over-estimate, never under.
  return JSON.stringify(message) ?? '';
}

function counted(counter: TokenCounter, text: string, model: string): number {
  const tokens = counter(text, model);
  if (typeof tokens !== 'number' || !Number.isFinite(tokens) || tokens < 0) {
    throw new Error(`the token counter returned \`${String(tokens)}\``);
  }
  return Math.ceil(tokens);
}

function invalid(model: string, message: string): ModelCallFault {
  return { model, fault: 'invalid_request', message };
}

/**
 * Measure a model call: prompt tokens (messages plus framing, plus any known tokens), tool-schema tokens and the
 * completion cap. Never throws: a bad input or a failing counter comes back as a fault.
 *
 * @example
 * measureModelCall({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 100 }, defaultTokenCounter);
 * // { model: 'gpt-4o', promptTokens: 10, toolTokens: 0, maxOutputTokens: 100 }
 */
export function measureModelCall(input: ModelCallInput, counter: TokenCounter): ModelCallRequest {
  if (typeof input === 'object' && input !== null)
    recordArgument('measureModelCall', 'input', input, [
      'model',
      'messages',
      'tools',
      'maxOutputTokens',
      'knownPromptTokens',
    ]);
  const model = typeof input?.model === 'string' ? input.model : '';
  if (model === '') return invalid(model, '`model` must be a non-empty string');
  const { messages, tools, maxOutputTokens } = input;
  const known = input.knownPromptTokens ?? 0;
  if (!Array.isArray(messages)) return invalid(model, '`messages` must be an array');
  if (typeof maxOutputTokens !== 'number' || !Number.isInteger(maxOutputTokens) || maxOutputTokens < 0) {
    return invalid(model, `\`maxOutputTokens\` must be a non-negative integer (got \`${String(maxOutputTokens)}\`)`);
  }
  if (typeof known !== 'number' || !Number.isInteger(known) || known < 0) {
    return invalid(model, `\`knownPromptTokens\` must be a non-negative integer (got \`${String(known)}\`)`);
  }
  let texts: string[];
  let toolText: string;
  try {
    texts = messages.map(messageText);
    toolText = tools === undefined ? '' : (JSON.stringify(tools) ?? '');
  } catch (error) {
    return invalid(model, `the messages or tools have no JSON form: ${errorMessage(error)}`);
  }
  try {
    let promptTokens = REPLY_PRIMING_TOKENS + known;
    for (const text of texts) promptTokens += TOKENS_PER_MESSAGE + counted(counter, text, model);
    const toolTokens = toolText === '' ? 0 : counted(counter, toolText, model);
    return { model, promptTokens, toolTokens, maxOutputTokens };
  } catch (error) {
    return { model, fault: 'counter_failed', message: errorMessage(error) };
  }
}
