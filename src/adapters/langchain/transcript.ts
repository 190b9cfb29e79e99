/**
 * Transcript repair for LangChain messages: they are read as OpenAI chat messages (each carrying
 * its original), repaired by the pipeline, and only what the repair changed is rebuilt.
 */
import { AIMessage, ToolMessage } from '@langchain/core/messages';
import type { RepairTranscriptOptions } from '../../context/transcript/repair.js';
import type { GuardRun } from '../shared/run-types.js';
import { isObject, messageType, toolCallsOf } from './messages.js';
import type { LangChainMessage, LangChainToolCall } from './types.js';

/** The LangChain object a plain message or call was read from; spread copies keep it. */
const ORIGIN: unique symbol = Symbol('hyphae.langchain.origin');

type Plain = Record<string | symbol, unknown> & { [ORIGIN]?: unknown };

const ROLE_OF_TYPE: Readonly<Record<string, string>> = {
  human: 'user',
  system: 'system',
  developer: 'system',
  ai: 'assistant',
  tool: 'tool',
};

function argumentsText(args: unknown): string {
  try {
    return JSON.stringify(args ?? {}) ?? '{}';
  } catch {
    return '{}';
  }
}

/** An OpenAI chat message for a LangChain message (other types read as `user`, so they stay in place). */
export function toPlainMessage(message: unknown): Plain {
  const type = messageType(message) ?? '';
  const source = (isObject(message) ? message : {}) as LangChainMessage;
  const role = ROLE_OF_TYPE[type] ?? 'user';
  const plain: Plain = { role, content: source.content ?? '', [ORIGIN]: message };
  if (role === 'tool') plain.tool_call_id = source.tool_call_id;
  const calls = toolCallsOf(message);
  if (calls.length > 0) {
    plain.tool_calls = calls.map((call) => ({
      id: call.id,
      type: 'function',
      function: { name: call.name, arguments: argumentsText(call.args) },
      [ORIGIN]: call,
    }));
  }
  return plain;
}

function defined(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

function rebuiltCall(plain: Plain): LangChainToolCall {
  const origin = plain[ORIGIN] as LangChainToolCall | undefined;
  const fn = (isObject(plain.function) ? plain.function : {}) as { name?: unknown; arguments?: unknown };
  let args = origin?.args;
  if (args === undefined) {
    try {
      args = JSON.parse(String(fn.arguments ?? '{}'));
    } catch {
      args = {};
    }
  }
  return { ...origin, id: plain.id as string, name: String(fn.name ?? origin?.name ?? ''), args, type: 'tool_call' };
}

function rebuiltAssistant(plain: Plain): unknown {
  const origin = (plain[ORIGIN] ?? {}) as LangChainMessage & Record<string, unknown>;
  const calls = Array.isArray(plain.tool_calls) ? (plain.tool_calls as Plain[]).map(rebuiltCall) : [];
  const kwargs = isObject(origin.additional_kwargs) ? { ...origin.additional_kwargs } : undefined;
  // Provider converters may prefer raw `additional_kwargs.tool_calls`; the repaired list must win.
  if (kwargs !== undefined) delete kwargs.tool_calls;
  const fields = defined({
    id: origin.id,
    name: origin.name,
    content: plain.content ?? '',
    tool_calls: calls,
    invalid_tool_calls: origin.invalid_tool_calls,
    usage_metadata: origin.usage_metadata,
    response_metadata: origin.response_metadata,
    additional_kwargs: kwargs,
  });
  return new AIMessage(fields as ConstructorParameters<typeof AIMessage>[0]);
}

function rebuiltTool(plain: Plain, names: ReadonlyMap<string, string>): unknown {
  const origin = plain[ORIGIN] as (LangChainMessage & Record<string, unknown>) | undefined;
  const id = String(plain.tool_call_id ?? '');
  const fields = defined({
    id: origin?.id,
    content: plain.content ?? '',
    tool_call_id: id,
    name: origin?.name ?? names.get(id),
    // A result the repair wrote itself says the call was NOT executed.
    status: origin === undefined ? 'error' : origin.status,
    artifact: origin?.artifact,
    additional_kwargs: origin?.additional_kwargs,
    response_metadata: origin?.response_metadata,
  });
  return new ToolMessage(fields as unknown as ConstructorParameters<typeof ToolMessage>[0]);
}

/**
 * Repair `messages` through the run (which reports the changes); `null` when nothing changed.
 * Unchanged messages are the input objects; changed ones are rebuilt with their ids.
 */
export function repairLangChainMessages(
  run: GuardRun,
  messages: readonly unknown[],
  options: Omit<RepairTranscriptOptions, 'format'>,
): unknown[] | null {
  const plain = messages.map(toPlainMessage);
  const read = new Set<unknown>(plain);
  const repaired = run.repairTranscript(plain, { ...options, format: 'openai' });
  if (repaired.length === plain.length && repaired.every((message, index) => message === plain[index])) return null;
  const names = new Map<string, string>();
  for (const message of repaired) {
    if (!Array.isArray(message.tool_calls)) continue;
    for (const call of message.tool_calls as Plain[]) {
      const fn = isObject(call.function) ? call.function : {};
      if (typeof call.id === 'string' && typeof fn.name === 'string') names.set(call.id, fn.name);
    }
  }
  return repaired.map((message) => {
    if (read.has(message)) return message[ORIGIN];
    if (message.role === 'assistant') return rebuiltAssistant(message);
    if (message.role === 'tool') return rebuiltTool(message, names);
    return message[ORIGIN];
  });
}
