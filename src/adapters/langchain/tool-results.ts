/**
 * What the ledger keeps of a LangChain tool result, and the `ToolMessage` a call is answered with:
 * live, replayed from the ledger or the cache, refused, or failed — always with the call's id.
 */
import { ToolMessage } from '@langchain/core/messages';
import { isCommand } from '@langchain/langgraph';
import { formatToolResult } from '../shared/format-result.js';
import { isObject, messageType } from './messages.js';
import type { LangChainMessage, LangChainToolCall } from './types.js';

/** The JSON the ledger stores for one call's result. */
export type StoredToolResult =
  | { readonly kind: 'tool_message'; readonly content: unknown; readonly artifact?: unknown }
  | { readonly kind: 'command' }
  | { readonly kind: 'value'; readonly value: unknown };

/** A tool message as the adapter hands it back (a `ToolMessage` at run time). */
export type ToolMessageLike = LangChainMessage;

/**
 * A tool answered with a `ToolMessage` whose status is `error` (an inner middleware caught its
 * error): the ledger records a failure, and the call is answered with that message as it is.
 */
export class ToolErrorResult extends Error {
  readonly toolMessage: ToolMessageLike;

  constructor(toolMessage: ToolMessageLike) {
    super(formatToolResult(toolMessage.content));
    this.name = 'ToolErrorResult';
    this.toolMessage = toolMessage;
  }
}

/** True for a `ToolMessage`. */
export function isToolMessage(value: unknown): value is ToolMessageLike {
  return messageType(value) === 'tool';
}

/** True for a LangGraph `Command`. */
export function isGraphCommand(value: unknown): boolean {
  return isCommand(value);
}

/** The stored form of what a tool returned; throws {@link ToolErrorResult} for an error message. */
export function storedResultOf(output: unknown): StoredToolResult {
  if (isToolMessage(output)) {
    if (output.status === 'error') throw new ToolErrorResult(output);
    return output.artifact === undefined
      ? { kind: 'tool_message', content: output.content }
      : { kind: 'tool_message', content: output.content, artifact: output.artifact };
  }
  if (isGraphCommand(output)) return { kind: 'command' };
  return { kind: 'value', value: output };
}

function stored(result: unknown): StoredToolResult | undefined {
  if (!isObject(result)) return undefined;
  const kind = result.kind;
  return kind === 'tool_message' || kind === 'command' || kind === 'value' ? (result as StoredToolResult) : undefined;
}

function callId(call: LangChainToolCall): string {
  return call.id ?? '';
}

/** The answer to `call` from a result the ledger or the cache returned (the body did not run now). */
export function replayedToolMessage(result: unknown, call: LangChainToolCall): ToolMessageLike {
  const record = stored(result);
  if (record?.kind === 'command') {
    return new ToolMessage({
      content: `The call to \`${call.name}\` already ran; its result was a graph command, which is not replayed`,
      tool_call_id: callId(call),
      name: call.name,
    });
  }
  const content =
    record === undefined
      ? formatToolResult(result)
      : record.kind === 'tool_message'
        ? // A string or content blocks, as the tool gave them.
          (record.content as string)
        : formatToolResult(record.value);
  const artifact = record?.kind === 'tool_message' ? record.artifact : undefined;
  return new ToolMessage({
    content,
    tool_call_id: callId(call),
    name: call.name,
    status: 'success',
    ...(artifact === undefined ? {} : { artifact }),
  });
}

/** The value a direct `tool.invoke(args)` returns for a replayed result. */
export function replayedValue(result: unknown): unknown {
  const record = stored(result);
  if (record === undefined) return result;
  if (record.kind === 'value') return record.value;
  if (record.kind === 'tool_message') return record.content;
  return undefined;
}

/** A refusal or a failure: an error `ToolMessage` with the call's id, saying what (did not) happen. */
export function errorToolMessage(call: LangChainToolCall, content: string): ToolMessageLike {
  return new ToolMessage({ content, tool_call_id: callId(call), name: call.name, status: 'error' });
}
