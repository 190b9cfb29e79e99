/**
 * The tool runner: calls tools through the registry and the boundary, and drives a model turn with
 * bounded retries (see `llm-turn.ts` for the `invokeLlm` protocol).
 */

import { optionsOf } from '../invalid-argument.js';
import type { ToolCallRequest } from './chat.js';
import { ToolDefinitionError } from './errors.js';
import { type FormatToolResult, type LlmRetryOptions, type LlmTurnResult, runLlmTurn } from './llm-turn.js';
import {
  executeWithRetries,
  type ParseToolArgs,
  parseJsonArgs,
  prepareCall,
  type ToolLookup,
} from './tool-execution.js';

/** Options of {@link createToolRunner}. */
export interface ToolRunnerOptions {
  /** Usually a `createToolRegistry` registry of `bounded` tools. */
  readonly registry: ToolLookup;
  /** How many times the model is asked again after a refused call or an output that kept failing. Default 2. */
  readonly maxLlmRetries?: number;
  /** How many times a `read` / `idempotent_mutate` body is re-run after it threw or its output failed. Default 2. */
  readonly maxToolRetries?: number;
  /** Parses a model's raw argument text. Default: `JSON.parse`, with `""` read as `{}`. */
  readonly parseToolArgs?: ParseToolArgs;
  /** Turns an output into tool-message content. Default: strings as they are, anything else as JSON. */
  readonly formatToolResult?: FormatToolResult;
}

/** Options of one {@link ToolRunner.call}. */
export interface RunnerCallOptions {
  readonly signal?: AbortSignal;
}

/** Calls tools through the boundary. */
export interface ToolRunner {
  /**
   * Run one call `{ id, name, args }` (`args` an object or the model's JSON text). Resolves to the
   * tool's output; rejects with `ToolRegistryError`, `ToolBoundaryError` (input refused, or the
   * output of a tool that may not be re-run failed), `ToolBoundaryExhaustedError`, or the tool's
   * own error.
   */
  call(call: ToolCallRequest, options?: RunnerCallOptions): Promise<unknown>;
  /** Run one model turn with bounded retries; see {@link LlmRetryOptions}. */
  runWithLlmRetry(options: LlmRetryOptions): Promise<LlmTurnResult>;
}

function count(option: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new ToolDefinitionError(undefined, option, `must be a non-negative integer, got \`${String(value)}\``);
  }
  return value;
}

function formatJson(output: unknown): string {
  if (typeof output === 'string') return output;
  try {
    return JSON.stringify(output) ?? 'null';
  } catch {
    return String(output);
  }
}

/**
 * Create a runner over a registry of bounded tools.
 *
 * @example
 * const runner = createToolRunner({ registry, maxLlmRetries: 2, maxToolRetries: 1 });
 * const turn = await runner.runWithLlmRetry({
 *   messages: [{ role: 'user', content: 'Who is customer c42?' }],
 *   invokeLlm: async ({ messages }) =>
 *     (await openai.chat.completions.create({ model, messages, tools })).choices[0].message,
 * });
 * // turn.messages: the transcript with exactly one tool message per tool call id
 */
export function createToolRunner(given: ToolRunnerOptions): ToolRunner {
  const options = optionsOf('createToolRunner', given);
  if (options.registry === null || typeof options.registry?.get !== 'function') {
    throw new ToolDefinitionError(undefined, 'registry', 'must have a `get(name)` method');
  }
  const settings = Object.freeze({
    registry: options.registry,
    parse: options.parseToolArgs ?? parseJsonArgs,
    format: options.formatToolResult ?? formatJson,
    maxLlmRetries: count('maxLlmRetries', options.maxLlmRetries, 2),
    maxToolRetries: count('maxToolRetries', options.maxToolRetries, 2),
  });

  async function call(request: ToolCallRequest, callOptions: RunnerCallOptions = {}): Promise<unknown> {
    const prepared = await prepareCall(settings.registry, settings.parse, request);
    return executeWithRetries(prepared, settings.maxToolRetries, callOptions.signal);
  }

  function runWithLlmRetry(turn: LlmRetryOptions): Promise<LlmTurnResult> {
    return runLlmTurn(settings, turn);
  }

  return Object.freeze({ call, runWithLlmRetry });
}
