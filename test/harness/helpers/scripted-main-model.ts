/**
 * A main model that answers from a script, and records every request it was sent.
 */
import type { MainModel, ModelRequest, ModelResponse, ModelToolCall } from '../../../src/harness/index.js';

/** One scripted answer: a response, a function of the request, or an error to throw. */
export type ScriptedAnswer =
  | ModelResponse
  | Error
  | ((request: ModelRequest) => ModelResponse | Promise<ModelResponse>);

const USAGE = { inputTokens: 100, outputTokens: 20, cachedInputTokens: 40, reasoningTokens: 5 };

/** A {@link MainModel} returning queued answers in order; it throws when the script runs out. */
export class ScriptedMainModel implements MainModel {
  readonly id: string;
  readonly requests: ModelRequest[] = [];
  readonly #script: ScriptedAnswer[];

  constructor(script: readonly ScriptedAnswer[], id = 'scripted-model') {
    this.#script = [...script];
    this.id = id;
  }

  get remaining(): number {
    return this.#script.length;
  }

  async complete(request: ModelRequest): Promise<ModelResponse> {
    this.requests.push(request);
    const next = this.#script.shift();
    if (next === undefined) throw new Error(`The script ran out at request ${this.requests.length}`);
    if (next instanceof Error) throw next;
    return typeof next === 'function' ? next(request) : next;
  }
}

/** A final answer `{ message, patch }` as JSON text. */
export function final(message: string, patch: readonly unknown[] | null = null): ModelResponse {
  return { text: JSON.stringify({ message, patch }), usage: USAGE, finishReason: 'stop' };
}

/** A turn asking for tool calls: `[name, input]` or `[name, input, id]`. */
export function calls(
  ...list: readonly (readonly [string, unknown] | readonly [string, unknown, string])[]
): ModelResponse {
  const toolCalls: ModelToolCall[] = list.map(([name, input, id], index) => ({
    id: id ?? `c${index + 1}`,
    name,
    input,
  }));
  return { text: '', toolCalls, usage: USAGE, finishReason: 'tool-calls' };
}

/** A plain text answer (not a usable final answer unless it is the right JSON). */
export function text(content: string): ModelResponse {
  return { text: content, usage: USAGE, finishReason: 'stop' };
}

/** The deterministic part of a request, as canonical-enough JSON text. */
export function requestBytes(request: ModelRequest): string {
  const { signal: _signal, timeoutSignal: _timeout, ...rest } = request;
  return JSON.stringify(rest);
}
