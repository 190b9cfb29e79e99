/**
 * Reading LangChain messages and graph state without their classes: by `getType()` and fields.
 */
import type { LangChainMessage, LangChainToolCall } from './types.js';

/** True for a non-null object. */
export function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null;
}

/** The message's type (`human`, `ai`, `tool`, `system`, …), or `undefined` for a non-message. */
export function messageType(message: unknown): string | undefined {
  if (!isObject(message)) return undefined;
  const typed = message as LangChainMessage;
  if (typeof typed.getType === 'function') {
    try {
      return typed.getType();
    } catch {
      return undefined;
    }
  }
  return typeof typed.type === 'string' ? typed.type : undefined;
}

/** The messages of a graph state (`{ messages }`) or of a bare message list. */
export function messagesOf(state: unknown): readonly unknown[] {
  if (Array.isArray(state)) return state;
  if (isObject(state) && Array.isArray(state.messages)) return state.messages;
  return [];
}

/** The tool calls of an AI message (none for any other message). */
export function toolCallsOf(message: unknown): readonly LangChainToolCall[] {
  if (messageType(message) !== 'ai') return [];
  const calls = (message as LangChainMessage).tool_calls;
  return Array.isArray(calls) ? calls : [];
}

/** The id of the last message of `type`, when it has one. */
export function lastMessageId(messages: readonly unknown[], type: string): string | undefined {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (messageType(message) !== type) continue;
    const id = (message as LangChainMessage).id;
    return typeof id === 'string' && id !== '' ? id : undefined;
  }
  return undefined;
}

/** The calls of the last AI message that no tool message answers yet. */
export function pendingToolCalls(messages: readonly unknown[]): readonly LangChainToolCall[] {
  let last = -1;
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messageType(messages[i]) === 'ai') {
      last = i;
      break;
    }
  }
  if (last < 0) return [];
  const calls = toolCallsOf(messages[last]);
  if (calls.length === 0) return [];
  const answered = new Set<string>();
  for (let i = last + 1; i < messages.length; i++) {
    const message = messages[i];
    if (messageType(message) === 'tool') answered.add(String((message as LangChainMessage).tool_call_id));
  }
  return calls.filter((call) => call.id === undefined || !answered.has(call.id));
}
