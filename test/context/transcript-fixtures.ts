/**
 * One abstract transcript rendered into the three formats, and a format-neutral projection of a
 * transcript (through the public converters) so one expectation covers all three.
 */
import { fromAiSdkMessages } from '../../src/context/transcript/convert-ai-sdk.js';
import { fromAnthropicMessages } from '../../src/context/transcript/convert-anthropic.js';
import type {
  AiSdkMessage,
  AnthropicMessage,
  TranscriptFormat,
  TranscriptMessage,
} from '../../src/context/transcript/types.js';

export interface AbstractCall {
  readonly id?: string;
  readonly name?: string;
  readonly index?: number;
  readonly parsed?: true;
}

export interface AbstractResult {
  readonly id?: string;
  readonly text: string;
}

export type Abstract =
  | { readonly kind: 'user'; readonly text: string }
  | {
      readonly kind: 'assistant';
      readonly text?: string;
      readonly calls?: readonly AbstractCall[];
      readonly parsed?: true;
    }
  | { readonly kind: 'results'; readonly results: readonly AbstractResult[] }
  | { readonly kind: 'invalid'; readonly role: string };

export const FORMATS: readonly TranscriptFormat[] = ['openai', 'ai-sdk', 'anthropic'];

export const user = (text: string): Abstract => ({ kind: 'user', text });
export const assistant = (calls: readonly (AbstractCall | string)[], text?: string, parsed?: true): Abstract => ({
  kind: 'assistant',
  calls: calls.map((call) => (typeof call === 'string' ? { id: call } : call)),
  ...(text === undefined ? {} : { text }),
  ...(parsed === undefined ? {} : { parsed }),
});
export const results = (...items: readonly (AbstractResult | string)[]): Abstract => ({
  kind: 'results',
  results: items.map((item) => (typeof item === 'string' ? { id: item, text: `result of ${item}` } : item)),
});
export const invalid = (role: string): Abstract => ({ kind: 'invalid', role });

type Msg = Record<string, unknown>;

function openAi(item: Abstract): Msg[] {
  switch (item.kind) {
    case 'user':
      return [{ role: 'user', content: item.text }];
    case 'invalid':
      return [{ role: item.role, content: 'not a valid role' }];
    case 'results':
      return item.results.map((r) => ({
        role: 'tool',
        ...(r.id === undefined ? {} : { tool_call_id: r.id }),
        content: r.text,
      }));
    case 'assistant': {
      const calls = (item.calls ?? []).map((c) => ({
        ...(c.id === undefined ? {} : { id: c.id }),
        type: 'function',
        function: { name: c.name ?? 'lookup', arguments: '{}', ...(c.parsed ? { parsed_arguments: {} } : {}) },
        ...(c.index === undefined ? {} : { index: c.index }),
      }));
      return [
        {
          role: 'assistant',
          content: item.text ?? null,
          ...(calls.length > 0 ? { tool_calls: calls } : {}),
          ...(item.parsed ? { parsed: null } : {}),
        },
      ];
    }
  }
}

function blocks(item: Extract<Abstract, { kind: 'assistant' }>, format: 'ai-sdk' | 'anthropic'): Msg {
  const calls = item.calls ?? [];
  const extra = item.parsed ? { parsed: null } : {};
  if (calls.length === 0) return { role: 'assistant', content: item.text ?? '', ...extra };
  const content: Msg[] = item.text === undefined ? [] : [{ type: 'text', text: item.text }];
  for (const c of calls) {
    const common = { ...(c.index === undefined ? {} : { index: c.index }), ...(c.parsed ? { parsed_output: {} } : {}) };
    content.push(
      format === 'ai-sdk'
        ? {
            type: 'tool-call',
            ...(c.id === undefined ? {} : { toolCallId: c.id }),
            toolName: c.name ?? 'lookup',
            input: {},
            ...common,
          }
        : {
            type: 'tool_use',
            ...(c.id === undefined ? {} : { id: c.id }),
            name: c.name ?? 'lookup',
            input: {},
            ...common,
          },
    );
  }
  return { role: 'assistant', content, ...extra };
}

function aiSdk(item: Abstract): Msg[] {
  switch (item.kind) {
    case 'user':
    case 'invalid':
      return openAi(item);
    case 'assistant':
      return [blocks(item, 'ai-sdk')];
    case 'results':
      return [
        {
          role: 'tool',
          content: item.results.map((r) => ({
            type: 'tool-result',
            ...(r.id === undefined ? {} : { toolCallId: r.id }),
            toolName: 'lookup',
            output: { type: 'text', value: r.text },
          })),
        },
      ];
  }
}

function anthropic(item: Abstract): Msg[] {
  switch (item.kind) {
    case 'user':
    case 'invalid':
      return openAi(item);
    case 'assistant':
      return [blocks(item, 'anthropic')];
    case 'results':
      return [
        {
          role: 'user',
          content: item.results.map((r) => ({
            type: 'tool_result',
            ...(r.id === undefined ? {} : { tool_use_id: r.id }),
            content: r.text,
          })),
        },
      ];
  }
}

/** The messages of `items` in `format`, and the message index each item starts at. */
export function render(items: readonly Abstract[], format: TranscriptFormat): { messages: Msg[]; at: number[] } {
  const messages: Msg[] = [];
  const at: number[] = [];
  const renderOne = format === 'openai' ? openAi : format === 'ai-sdk' ? aiSdk : anthropic;
  for (const item of items) {
    at.push(messages.length);
    messages.push(...renderOne(item));
  }
  return { messages, at };
}

/** Any transcript as canonical messages. */
export function toCanonical(messages: readonly unknown[], format: TranscriptFormat): TranscriptMessage[] {
  if (format === 'ai-sdk') return fromAiSdkMessages(messages as AiSdkMessage[]);
  if (format === 'anthropic') return fromAnthropicMessages(messages as AnthropicMessage[]);
  return messages as TranscriptMessage[];
}

/** A format-neutral, readable projection: one line per canonical message. */
export function project(messages: readonly unknown[], format: TranscriptFormat): string[] {
  return toCanonical(messages, format).map((m) => {
    const text = typeof m.content === 'string' ? m.content : m.content === null ? '' : JSON.stringify(m.content);
    if (m.role === 'tool') return `tool ${m.tool_call_id}: ${text.startsWith('Tool call') ? 'NOT EXECUTED' : text}`;
    if (m.role === 'assistant' && m.tool_calls !== undefined) {
      return `assistant ${text}[${m.tool_calls.map((c) => `${c.id} ${c.function.name}`).join(', ')}]`;
    }
    return `${m.role} ${text}`;
  });
}

export { deepFreeze } from '../../src/core/deep-freeze.js';
