/**
 * AI SDK `ModelMessage` (ai v5 to v7): `tool-call` parts in assistant content, `tool-result` parts
 * in `tool` messages. Calls the provider executed itself (`providerExecuted: true`) are answered
 * inside the assistant message and are left out of the checks, as are approval parts.
 */
import { contentFormat } from './content-format.js';
import { rewriteContent } from './content-turns.js';
import { type FormatAdapter, notExecutedText, type Obj, type OutResult, strip, stripMessage } from './turns.js';

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

/** The AI SDK `ModelMessage` adapter. */
export const aiSdkFormat: FormatAdapter = contentFormat({
  format: 'ai-sdk',
  idPrefix: 'call_',
  block: 'run',
  roles: { system: 'system', user: 'user', assistant: 'assistant', tool: 'tool' },
  resultRole: 'tool',
  keys: {
    isCall: (part) => part.type === 'tool-call' && part.providerExecuted !== true,
    callId: 'toolCallId',
    callName: 'toolName',
    resultType: 'tool-result',
    resultId: 'toolCallId',
  },
  writeResult: writeResultPart,
  write(turn, edit) {
    const message = strip(turn.source as Obj);
    if (!Array.isArray(message.content) || (turn.calls.length === 0 && turn.results.length === 0)) {
      return [stripMessage(message)];
    }
    return rewriteContent(message, turn, edit, 'toolCallId', writeResultPart);
  },
});
