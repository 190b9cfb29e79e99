/**
 * AI SDK `ModelMessage` (ai v5 to v7): `tool-call` parts in assistant content, `tool-result` parts
 * in `tool` messages. Calls the provider executed itself (`providerExecuted: true`) are answered
 * inside the assistant message and are left out of the checks, as are approval parts.
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
  type ResultItem,
  readTurn,
  strip,
  stripMessage,
  type Turn,
  type TurnEdit,
  type TurnRole,
  writeCallObject,
} from './turns.js';

const ROLES: Readonly<Record<string, TurnRole>> = {
  system: 'system',
  user: 'user',
  assistant: 'assistant',
  tool: 'tool',
};

function parts(message: Obj): readonly unknown[] {
  return Array.isArray(message.content) ? message.content : [];
}

function readCalls(message: Obj): readonly CallItem[] {
  const calls: CallItem[] = [];
  for (const part of parts(message)) {
    if (isObj(part) && part.type === 'tool-call' && part.providerExecuted !== true) {
      calls.push(callItem(part, part.toolCallId, part.toolName, calls.length));
    }
  }
  return calls.length === 0 ? NONE : calls;
}

function readResults(message: Obj): readonly ResultItem[] {
  const results: ResultItem[] = [];
  for (const part of parts(message)) {
    if (isObj(part) && part.type === 'tool-result') results.push({ id: idOf(part.toolCallId), source: part });
  }
  return results.length === 0 ? NONE : results;
}

function writeResultPart(out: OutResult): Obj {
  if (out.source === null) {
    return {
      type: 'tool-result',
      toolCallId: out.id,
      toolName: out.toolName,
      output: { type: 'error-text', value: notExecutedText(out.toolName, out.id) },
    };
  }
  return { ...strip(out.source), toolCallId: out.id };
}

/** Rewrite the parts of a message: call and result parts through `items`, others lose their artifacts. */
function rewriteParts(message: Obj, items: ReadonlyMap<unknown, () => Obj | null>): unknown[] {
  const written: unknown[] = [];
  for (const part of parts(message)) {
    const write = items.get(part);
    if (write === undefined) {
      written.push(isObj(part) ? strip(part) : part);
      continue;
    }
    const next = write();
    if (next !== null) written.push(next);
  }
  return written;
}

function writeTurn(turn: Turn, edit: TurnEdit): unknown[] {
  const message = strip(turn.source as Obj);
  if (!Array.isArray(message.content) || (turn.calls.length === 0 && turn.results.length === 0)) {
    return [stripMessage(message)];
  }
  const items = new Map<unknown, () => Obj | null>();
  for (const call of turn.calls) {
    items.set(call.source, () => {
      const out = edit.calls.get(call);
      return out === undefined ? null : writeCallObject(out, 'toolCallId');
    });
  }
  for (const result of turn.results) {
    items.set(result.source, () => {
      const out = edit.results.get(result);
      return out === undefined ? null : writeResultPart(out);
    });
  }
  const content = rewriteParts(message, items);
  return content.length === 0 ? [] : [{ ...message, content }];
}

/** The AI SDK `ModelMessage` adapter. */
export const aiSdkFormat: FormatAdapter = Object.freeze({
  format: 'ai-sdk' as const,
  idPrefix: 'call_',
  block: 'run' as const,

  read(message: unknown, index: number): Turn {
    return readTurn(message, index, ROLES, 'tool', { calls: readCalls, results: readResults });
  },

  write: writeTurn,

  resultMessages(results: readonly OutResult[]): unknown[] {
    return results.length === 0 ? [] : [{ role: 'tool', content: results.map(writeResultPart) }];
  },
});
