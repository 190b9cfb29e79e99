import { describe, expect, it } from 'vitest';
import { fromAiSdkMessages, toAiSdkMessages } from '../../src/context/transcript/convert-ai-sdk.js';
import { fromAnthropicMessages, toAnthropicMessages } from '../../src/context/transcript/convert-anthropic.js';
import { detectTranscriptFormat } from '../../src/context/transcript/detect-format.js';
import type { AiSdkMessage, AnthropicMessage, TranscriptMessage } from '../../src/context/transcript/types.js';
import { validateTranscript } from '../../src/context/transcript/validate.js';

const chat: TranscriptMessage[] = [
  { role: 'system', content: 'Be brief' },
  { role: 'user', content: 'Weather in Oslo and Rome?' },
  {
    role: 'assistant',
    content: null,
    tool_calls: [
      { id: 'call_1', type: 'function', function: { name: 'weather', arguments: '{"city":"Oslo"}' } },
      { id: 'call_2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
    ],
  },
  { role: 'tool', tool_call_id: 'call_1', content: '4°C' },
  { role: 'tool', tool_call_id: 'call_2', content: '19°C' },
  { role: 'assistant', content: 'Oslo 4°C, Rome 19°C.' },
];

describe('AI SDK converters', () => {
  it('converts to ModelMessage shape: tool-call parts with parsed input, one tool message of results', () => {
    const messages = toAiSdkMessages(chat);

    expect(messages[2]).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool-call', toolCallId: 'call_1', toolName: 'weather', input: { city: 'Oslo' } },
        { type: 'tool-call', toolCallId: 'call_2', toolName: 'weather', input: { city: 'Rome' } },
      ],
    });
    expect(messages[3]).toEqual({
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'call_1', toolName: 'weather', output: { type: 'text', value: '4°C' } },
        { type: 'tool-result', toolCallId: 'call_2', toolName: 'weather', output: { type: 'text', value: '19°C' } },
      ],
    });
    expect(messages).toHaveLength(5);
    expect(detectTranscriptFormat(messages)).toBe('ai-sdk');
    expect(validateTranscript(messages).ok).toBe(true);
  });

  it('round-trips the canonical transcript', () => {
    expect(fromAiSdkMessages(toAiSdkMessages(chat))).toEqual(chat);
  });

  it('serialises JSON, error and denied outputs, and carries parts it cannot map', () => {
    const messages: AiSdkMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', image: 'https://x/y.png' },
          { type: 'file', data: 'AA', mediaType: 'application/pdf' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'hmm' },
          { type: 'tool-call', toolCallId: 'c1', toolName: 'f', input: { a: 1 } },
          { type: 'tool-call', toolCallId: 'c2', toolName: 'g', input: {} },
          { type: 'tool-call', toolCallId: 'c3', toolName: 'h', input: {} },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'f', output: { type: 'json', value: { ok: true } } },
          { type: 'tool-result', toolCallId: 'c2', toolName: 'g', output: { type: 'error-text', value: 'boom' } },
          {
            type: 'tool-result',
            toolCallId: 'c3',
            toolName: 'h',
            output: { type: 'execution-denied', reason: 'user said no' },
          },
        ],
      },
    ];

    const converted = fromAiSdkMessages(messages);

    expect(converted[0]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'https://x/y.png' } },
        { type: 'file', data: 'AA', mediaType: 'application/pdf' },
      ],
    });
    expect(converted[1]).toMatchObject({ role: 'assistant', content: [{ type: 'reasoning', text: 'hmm' }] });
    expect(converted.slice(2)).toEqual([
      { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
      { role: 'tool', tool_call_id: 'c2', content: 'boom' },
      { role: 'tool', tool_call_id: 'c3', content: 'Tool execution denied: user said no' },
    ]);
  });
});

describe('Anthropic converters', () => {
  it('converts to Messages shape: system apart, tool_use blocks, results first in one user message', () => {
    const { system, messages } = toAnthropicMessages([...chat.slice(0, 5), { role: 'user', content: 'thanks' }]);

    expect(system).toBe('Be brief');
    expect(messages[1]).toEqual({
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Oslo' } },
        { type: 'tool_use', id: 'call_2', name: 'weather', input: { city: 'Rome' } },
      ],
    });
    expect(messages[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'call_1', content: '4°C' },
        { type: 'tool_result', tool_use_id: 'call_2', content: '19°C' },
        { type: 'text', text: 'thanks' },
      ],
    });
    expect(validateTranscript(messages, { format: 'anthropic' }).ok).toBe(true);
  });

  it('round-trips the canonical transcript', () => {
    const { system, messages } = toAnthropicMessages(chat);

    expect(fromAnthropicMessages(messages, system === undefined ? {} : { system })).toEqual(chat);
  });

  it('splits a user message into tool messages and the rest, and maps images', () => {
    const messages: AnthropicMessage[] = [
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'checking' },
          { type: 'tool_use', id: 'toolu_1', name: 'f', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'done' }] },
          { type: 'text', text: 'and this' },
        ],
      },
    ];

    const converted = fromAnthropicMessages(messages);

    expect(converted).toEqual([
      {
        role: 'assistant',
        content: 'checking',
        tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'done' },
      { role: 'user', content: 'and this' },
    ]);
    const image = toAnthropicMessages([
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }] },
    ]);
    expect(image.messages[0]?.content).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
    ]);
  });
});

describe('detectTranscriptFormat', () => {
  it('reads the first message that tells, defaulting to openai', () => {
    expect(detectTranscriptFormat([{ role: 'user', content: 'hi' }])).toBe('openai');
    expect(detectTranscriptFormat([{ role: 'tool', tool_call_id: 'x', content: 'r' }])).toBe('openai');
    expect(detectTranscriptFormat([{ role: 'tool', content: [] }])).toBe('ai-sdk');
    expect(detectTranscriptFormat([{ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'x' }] }])).toBe(
      'anthropic',
    );
  });
});
