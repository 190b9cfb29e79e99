/**
 * OpenAI Chat Completions messages: `tool_calls` on assistant messages, one `tool` message per result.
 */
import {
  type CallItem,
  callItem,
  type FormatAdapter,
  idOf,
  isObj,
  NONE,
  notExecutedText,
  type Obj,
  type OutResult,
  readTurn,
  stripMessage,
  type Turn,
  type TurnEdit,
  type TurnRole,
  writeCallObject,
} from './turns.js';

const ROLES: Readonly<Record<string, TurnRole>> = {
  system: 'system',
  developer: 'system',
  user: 'user',
  assistant: 'assistant',
  tool: 'tool',
};

function isEmptyContent(content: unknown): boolean {
  return (
    content === null || content === undefined || content === '' || (Array.isArray(content) && content.length === 0)
  );
}

function readCalls(message: Obj): readonly CallItem[] {
  const calls = message.tool_calls;
  if (!Array.isArray(calls) || calls.length === 0) return NONE;
  return calls.map((call: unknown, position) => {
    const source = isObj(call) ? call : {};
    const fn = isObj(source.function) ? source.function : {};
    return callItem(source, source.id, fn.name, position);
  });
}

function writeResult(out: OutResult): Obj {
  if (out.source === null)
    return { role: 'tool', tool_call_id: out.id, content: notExecutedText(out.toolName, out.id) };
  return { ...stripMessage(out.source), tool_call_id: out.id };
}

function writeAssistant(turn: Turn, edit: TurnEdit): unknown[] {
  const message = stripMessage(turn.source as Obj);
  if (turn.calls.length === 0) return [message];
  const calls: Obj[] = [];
  for (const call of turn.calls) {
    const out = edit.calls.get(call);
    if (out !== undefined) calls.push(writeCallObject(out, 'id'));
  }
  const { tool_calls: _dropped, ...rest } = message;
  if (calls.length > 0) return [{ ...rest, tool_calls: calls }];
  return isEmptyContent(rest.content) ? [] : [rest];
}

/** The OpenAI Chat Completions adapter. */
export const openAiFormat: FormatAdapter = Object.freeze({
  format: 'openai' as const,
  idPrefix: 'call_',
  block: 'run' as const,

  read(message: unknown, index: number): Turn {
    return readTurn(message, index, ROLES, 'tool', {
      calls: readCalls,
      results: (message) => [{ id: idOf(message.tool_call_id), source: message }],
    });
  },

  write(turn: Turn, edit: TurnEdit): unknown[] {
    if (turn.role === 'assistant') return writeAssistant(turn, edit);
    if (turn.role === 'tool') {
      const result = turn.results[0];
      const out = result === undefined ? undefined : edit.results.get(result);
      return out === undefined ? [] : [writeResult(out)];
    }
    return [stripMessage(turn.source as Obj)];
  },

  resultMessages(results: readonly OutResult[]): unknown[] {
    return results.map(writeResult);
  },
});
