/**
 * Anthropic Messages: `tool_use` blocks in assistant messages, answered by `tool_result` blocks in
 * the user message right after (results first, then any other content). `server_tool_use` blocks
 * are answered inside the assistant message and are left out of the checks.
 */
import { contentFormat } from './content-format.js';
import { contentElements, rewriteContent } from './content-turns.js';
import {
  type FormatAdapter,
  isObj,
  notExecutedText,
  type Obj,
  type OutResult,
  type ResultItem,
  strip,
  stripMessage,
  type Turn,
  type TurnEdit,
  type TurnRole,
} from './turns.js';

const ROLES: Readonly<Record<string, TurnRole>> = { user: 'user', assistant: 'assistant' };

function writeResultBlock(out: OutResult): Obj {
  if (out.source === null) {
    return { type: 'tool_result', tool_use_id: out.id, content: notExecutedText(out.toolName, out.id), is_error: true };
  }
  return { ...strip(out.source), tool_use_id: out.id };
}

function writeAssistant(message: Obj, turn: Turn, edit: TurnEdit): unknown[] {
  if (!Array.isArray(message.content)) return [stripMessage(message)];
  return rewriteContent(message, turn, edit, 'id', writeResultBlock);
}

/** A user turn: its kept results, then the results appended to its block, then its other content. */
function writeUser(message: Obj, turn: Turn, edit: TurnEdit): unknown[] {
  const results = new Map<unknown, ResultItem>(turn.results.map((result) => [result.source, result]));
  const kept: unknown[] = [];
  const other: unknown[] = [];
  if (typeof message.content === 'string') {
    if (message.content !== '') other.push({ type: 'text', text: message.content });
  } else {
    for (const block of contentElements(message)) {
      const result = results.get(block);
      if (result === undefined) other.push(isObj(block) ? strip(block) : block);
      else {
        const out = edit.results.get(result);
        if (out !== undefined) kept.push(writeResultBlock(out));
      }
    }
  }
  if (edit.appended.length === 0 && typeof message.content === 'string') return [message];
  const content = [...kept, ...edit.appended.map(writeResultBlock), ...other];
  return content.length === 0 ? [] : [{ ...message, content }];
}

/** The Anthropic Messages adapter. */
export const anthropicFormat: FormatAdapter = contentFormat({
  format: 'anthropic',
  idPrefix: 'toolu_',
  block: 'next',
  roles: ROLES,
  resultRole: 'user',
  keys: {
    isCall: (block) => block.type === 'tool_use',
    callId: 'id',
    callName: 'name',
    resultType: 'tool_result',
    resultId: 'tool_use_id',
  },
  writeResult: writeResultBlock,
  write(turn, edit) {
    // Only the message itself is stripped here: blocks are matched to items by identity below.
    const message = strip(turn.source as Obj);
    return turn.role === 'assistant' ? writeAssistant(message, turn, edit) : writeUser(message, turn, edit);
  },
});
