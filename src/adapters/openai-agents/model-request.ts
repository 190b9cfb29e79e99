/**
 * What the budget reads of an `@openai/agents` model call: the prompt and tool schemas of a
 * `ModelRequest`, and the tokens of the `Usage` its answer reports.
 */

import type { ModelCallCheck } from '../shared/run-types.js';
import type { AgentModelRequestLike } from './types.js';

type Bag = Readonly<Record<string, unknown>>;

function isBag(value: unknown): value is Bag {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function count(bag: unknown, key: string): number | undefined {
  const value = isBag(bag) ? bag[key] : undefined;
  return typeof value === 'number' ? value : undefined;
}

/** The completion cap a request sets, if any. */
export function maxTokensOf(request: AgentModelRequestLike): number | undefined {
  const value = request.modelSettings?.maxTokens;
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0 ? value : undefined;
}

/** The pre-flight of a request: system instructions and input as messages, tools, handoffs and output schema. */
export function modelCallOf(model: string, request: AgentModelRequestLike): ModelCallCheck {
  const input: readonly unknown[] =
    typeof request.input === 'string' ? [{ role: 'user', content: request.input }] : (request.input ?? []);
  const system = request.systemInstructions;
  const messages =
    typeof system === 'string' && system !== '' ? [{ role: 'system', content: system }, ...input] : input;
  // Handoffs go to the model as function tools, and a structured output type as a JSON schema.
  const definitions: unknown[] = [...(request.tools ?? []), ...(request.handoffs ?? [])];
  if (isBag(request.outputType)) definitions.push(request.outputType);
  return {
    model,
    messages,
    tools: definitions.length === 0 ? undefined : definitions,
    maxOutputTokens: maxTokensOf(request),
  };
}

/** The sum of one detail (`cached_tokens`, `reasoning_tokens`) over a record or a list of records. */
function detail(details: unknown, key: string): number | undefined {
  const list = Array.isArray(details) ? details : [details];
  let total: number | undefined;
  for (const entry of list) {
    const value = count(entry, key);
    if (value !== undefined) total = (total ?? 0) + value;
  }
  return total;
}

/**
 * An Agents SDK `Usage` (`inputTokens`, `outputTokens`, per-request `inputTokensDetails`, and
 * `requestUsageEntries` when the call made several requests) as a Responses API usage object, the
 * shape the budget reads, cached and reasoning tokens included. A usage with no tokens at all is
 * what the SDK's models report when the provider sent none (`new Usage({ requests: 1 })`): it
 * reads as missing, so the call's reservation is booked in its place.
 */
export function usageOf(usage: unknown): unknown {
  if (!isBag(usage)) return undefined;
  const entries = Array.isArray(usage.requestUsageEntries)
    ? (usage.requestUsageEntries as readonly unknown[]).filter(isBag)
    : [];
  const sum = (key: string): number | undefined =>
    entries.length === 0 ? undefined : entries.reduce<number>((total, entry) => total + (count(entry, key) ?? 0), 0);
  // The totals cover every request; entries are the breakdown. The larger is booked, never less.
  const pick = (total: unknown, fromEntries: number | undefined): unknown =>
    typeof total === 'number' && fromEntries !== undefined ? Math.max(total, fromEntries) : (total ?? fromEntries);
  const input = pick(usage.inputTokens, sum('inputTokens'));
  const output = pick(usage.outputTokens, sum('outputTokens'));
  if (input === undefined && output === undefined) return undefined;
  if (input === 0 && output === 0) return undefined;
  const details = (key: 'inputTokensDetails' | 'outputTokensDetails', name: string): number | undefined =>
    entries.length > 0
      ? detail(
          entries.map((entry) => entry[key]),
          name,
        )
      : detail(usage[key], name);
  const cached = details('inputTokensDetails', 'cached_tokens');
  const reasoning = details('outputTokensDetails', 'reasoning_tokens');
  return {
    input_tokens: input,
    output_tokens: output,
    ...(cached === undefined ? {} : { input_tokens_details: { cached_tokens: cached } }),
    ...(reasoning === undefined ? {} : { output_tokens_details: { reasoning_tokens: reasoning } }),
  };
}
