/**
 * AI SDK `ModelMessage` (ai v5 to v7): `tool-call` parts in assistant content, `tool-result` parts
 * in `tool` messages. Calls the provider executed itself (`providerExecuted: true`) are answered
 * inside the assistant message and are left out of the checks, as are approval parts.
 */
import { contentReaders, rewriteContent } from './content-turns.js';
import {
  type FormatAdapter,
  notExecutedText,
  type Obj,
  type OutResult,
  readTurn,
  strip,
  stripMessage,
  type Turn,
  type TurnEdit,
  type TurnRole,
} from './turns.js';

const ROLES: Readonly<Record<string, TurnRole>> = {
  system: 'system',
  user: 'user',
  assistant: 'assistant',
  tool: 'tool',
};

const READ = contentReaders({
  isCall: (part) => part.type === 'tool-call' && part.providerExecuted !== true,
  callId: 'toolCallId',
  callName: 'toolName',
  resultType: 'tool-result',
  resultId: 'toolCallId',
});

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

function writeTurn(turn: Turn, edit: TurnEdit): unknown[] {
  const message = strip(turn.source as Obj);
  if (!Array.isArray(message.content) || (turn.calls.length === 0 && turn.results.length === 0)) {
    return [stripMessage(message)];
  }
  return rewriteContent(message, turn, edit, 'toolCallId', writeResultPart);
}

/** The AI SDK `ModelMessage` adapter. */
export const aiSdkFormat: FormatAdapter = Object.freeze({
  format: 'ai-sdk' as const,
  idPrefix: 'call_',
  block: 'run' as const,

  read(message: unknown, index: number): Turn {
    return readTurn(message, index, ROLES, 'tool', READ);
  },

  write: writeTurn,

  resultMessages(results: readonly OutResult[]): unknown[] {
    return results.length === 0 ? [] : [{ role: 'tool', content: results.map(writeResultPart) }];
  },
});
