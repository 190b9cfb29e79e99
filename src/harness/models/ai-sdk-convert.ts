/**
 * Harness messages ↔ AI SDK `ModelMessage`s, usage and tool calls. Pure: nothing of `ai` is
 * imported; the shapes are the AI SDK 7 ones, written out structurally.
 */
import type { ModelMessage, ModelToolCall, ModelUsage } from './types.js';

/** An AI SDK content part, structurally. */
type AiPart = Readonly<Record<string, unknown>>;

/** An AI SDK model message, structurally. */
export interface AiMessage {
  readonly role: 'user' | 'assistant' | 'tool';
  readonly content: string | readonly AiPart[];
}

/** The prompt of one `generateText` call. */
export interface AiPrompt {
  readonly instructions: string | undefined;
  readonly messages: readonly AiMessage[];
}

/**
 * Convert harness messages: the system message becomes `instructions`, consecutive tool results
 * become one `tool` message, and tool results are sent as the exact canonical text the harness
 * built (so that the bytes a provider sees do not depend on its JSON serialiser).
 */
export function toAiPrompt(messages: readonly ModelMessage[]): AiPrompt {
  const system: string[] = [];
  const out: AiMessage[] = [];
  let results: AiPart[] | null = null;
  for (const message of messages) {
    if (message.role !== 'tool') results = null;
    switch (message.role) {
      case 'system':
        system.push(message.content);
        break;
      case 'user':
        out.push({ role: 'user', content: message.content });
        break;
      case 'assistant': {
        const calls = message.toolCalls ?? [];
        if (calls.length === 0) {
          out.push({ role: 'assistant', content: message.content });
          break;
        }
        const parts: AiPart[] = message.content === '' ? [] : [{ type: 'text', text: message.content }];
        for (const call of calls) {
          parts.push({ type: 'tool-call', toolCallId: call.id, toolName: call.name, input: call.input ?? {} });
        }
        out.push({ role: 'assistant', content: parts });
        break;
      }
      case 'tool': {
        const part = {
          type: 'tool-result',
          toolCallId: message.toolCallId,
          toolName: message.toolName,
          output: { type: message.isError ? 'error-text' : 'text', value: message.content },
        };
        if (results === null) {
          results = [part];
          out.push({ role: 'tool', content: results });
        } else {
          results.push(part);
        }
        break;
      }
    }
  }
  return { instructions: system.length === 0 ? undefined : system.join('\n\n'), messages: out };
}

type Bag = Readonly<Record<string, unknown>>;

function count(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : undefined;
}

/** AI SDK `LanguageModelUsage` → {@link ModelUsage}; `undefined` when input or output counts are missing. */
export function fromAiUsage(usage: unknown): ModelUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const u = usage as Bag;
  const input = count(u.inputTokens);
  const output = count(u.outputTokens);
  if (input === undefined || output === undefined) return undefined;
  const inDetails = (u.inputTokenDetails ?? {}) as Bag;
  const outDetails = (u.outputTokenDetails ?? {}) as Bag;
  return {
    inputTokens: input,
    outputTokens: output,
    cachedInputTokens: count(inDetails.cacheReadTokens) ?? count(u.cachedInputTokens) ?? 0,
    cacheWriteTokens: count(inDetails.cacheWriteTokens) ?? 0,
    reasoningTokens: count(outDetails.reasoningTokens) ?? count(u.reasoningTokens) ?? 0,
  };
}

/** AI SDK tool calls → {@link ModelToolCall}s; an invalid call keeps its raw input and says why. */
export function fromAiToolCalls(calls: unknown): ModelToolCall[] {
  if (!Array.isArray(calls)) return [];
  return calls.map((raw: unknown) => {
    const call = (raw ?? {}) as Bag;
    const id = typeof call.toolCallId === 'string' ? call.toolCallId : '';
    const name = typeof call.toolName === 'string' ? call.toolName : '';
    if (call.invalid !== true) return { id, name, input: call.input };
    const error = (call.error ?? {}) as Bag;
    // An unknown tool name is the harness's to report (it lists the tools this run offers).
    if (error.name === 'AI_NoSuchToolError') return { id, name, input: call.input };
    const cause = (error.cause ?? {}) as Bag;
    const reason = typeof cause.message === 'string' ? cause.message : String(error.message ?? 'unparseable');
    return { id, name, input: call.input, inputError: `the arguments are not valid JSON: ${reason}` };
  });
}
