/**
 * The transcript shape the runner speaks: OpenAI Chat Completions messages, declared structurally
 * (no SDK types), loose enough that an SDK's own message objects fit.
 */

/** A function tool call proposed by the model; `arguments` is the model's raw JSON text. */
export interface ChatToolCall {
  readonly id: string;
  readonly type?: string;
  readonly function: { readonly name: string; readonly arguments: string };
}

/** Any transcript message (`system`, `developer`, `user`, `assistant`, `tool`). */
export interface ChatMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly tool_calls?: readonly ChatToolCall[] | null | undefined;
  readonly tool_call_id?: string | undefined;
}

/** What the model returns: an assistant message, with tool calls or without. */
export interface LlmAssistantMessage extends ChatMessage {
  readonly role: 'assistant';
  readonly content?: string | null | undefined;
  readonly tool_calls?: readonly ChatToolCall[] | null | undefined;
}

/** The answer to one tool call; the transcript holds exactly one per tool call id. */
export interface ToolMessage extends ChatMessage {
  readonly role: 'tool';
  readonly tool_call_id: string;
  readonly content: string;
}

/** A tool call in the pipeline's shape: `args` is an object, or the model's raw JSON text. */
export interface ToolCallRequest {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
}

/** What {@link usedToolCallIds} reads of a message: every Chat Completions message fits. */
export interface MessageCallIds {
  readonly role: string;
  readonly tool_calls?: readonly { readonly id: string }[] | null | undefined;
  readonly tool_call_id?: string | undefined;
}

/** Every tool call id a transcript already uses (in assistant calls and tool answers). */
export function usedToolCallIds(messages: readonly MessageCallIds[]): Set<string> {
  const ids = new Set<string>();
  for (const message of messages) {
    if (typeof message.tool_call_id === 'string') ids.add(message.tool_call_id);
    for (const call of message.tool_calls ?? []) ids.add(call.id);
  }
  return ids;
}
