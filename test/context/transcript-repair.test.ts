import { describe, expect, it } from 'vitest';
import { repairTranscript } from '../../src/context/transcript/repair.js';
import { ARTIFACT_KEYS } from '../../src/context/transcript/turns.js';
import { validateTranscript } from '../../src/context/transcript/validate.js';
import { deepFreeze, FORMATS, project, render } from './transcript-fixtures.js';
import { SCENARIOS } from './transcript-scenarios.js';

const PREFIX = { openai: 'call_', 'ai-sdk': 'call_', anthropic: 'toolu_' } as const;

describe('repairTranscript: every code in every format', () => {
  for (const scenario of SCENARIOS) {
    for (const format of FORMATS) {
      for (const unanswered of ['synthesize', 'drop'] as const) {
        it(`${scenario.name} — ${format}, unanswered: ${unanswered}`, () => {
          const { messages } = render(scenario.items, format);
          const before = structuredClone(messages);
          deepFreeze(messages);

          const repaired = repairTranscript(messages, { unanswered });

          const expected = (unanswered === 'drop' ? (scenario.drop ?? scenario.synthesize) : scenario.synthesize)(
            PREFIX[format],
          );
          expect(project(repaired.messages, format)).toEqual(expected);
          expect(validateTranscript(repaired.messages, { format }).issues).toEqual([]);
          const kinds = unanswered === 'drop' ? (scenario.dropChanges ?? scenario.changes) : scenario.changes;
          expect(repaired.changes.map((change) => change.kind).sort()).toEqual([...kinds].sort());
          expect(repaired.messages).not.toBe(messages);
          expect(messages).toEqual(before);
          expect(repairTranscript(repaired.messages, { unanswered, format }).changes).toEqual([]);
        });
      }
    }
  }
});

describe('repairTranscript: details', () => {
  it('keeps unchanged messages as the same objects and valid input as is', () => {
    const { messages } = render(SCENARIOS.at(-1)?.items ?? [], 'openai');

    const repaired = repairTranscript(messages);

    expect(repaired.changes).toEqual([]);
    expect(repaired.messages).toEqual(messages);
    for (const [i, message] of repaired.messages.entries()) expect(message).toBe(messages[i]);
  });

  it('synthesizes a NOT executed result in each format, never a success', () => {
    const call = {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'pay', arguments: '{}' } }],
    };
    const aiSdk = {
      role: 'assistant',
      content: [{ type: 'tool-call', toolCallId: 'call_1', toolName: 'pay', input: {} }],
    };
    const anthropic = { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'pay', input: {} }] };

    const [, openAiResult] = repairTranscript([call]).messages;
    const [, aiSdkResult] = repairTranscript([aiSdk]).messages;
    const [, anthropicResult] = repairTranscript([anthropic]).messages;

    expect(openAiResult).toEqual({
      role: 'tool',
      tool_call_id: 'call_1',
      content: expect.stringContaining('was NOT executed'),
    });
    expect(aiSdkResult).toEqual({
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'call_1',
          toolName: 'pay',
          output: { type: 'error-text', value: expect.stringContaining('was NOT executed') },
        },
      ],
    });
    expect(anthropicResult).toEqual({
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'toolu_1',
          is_error: true,
          content: expect.stringContaining('was NOT executed'),
        },
      ],
    });
  });

  it('sets OpenAI index fields to the position among the surviving calls', () => {
    const calls = ['call_a', 'call_b', 'call_c'].map((id, i) => ({
      id,
      index: 5 + i,
      type: 'function',
      function: { name: 'f', arguments: '{}' },
    }));
    const messages = [
      { role: 'assistant', content: null, tool_calls: calls },
      { role: 'tool', tool_call_id: 'call_b', content: 'b' },
      { role: 'tool', tool_call_id: 'call_c', content: 'c' },
    ];

    const { messages: repaired } = repairTranscript(messages, { unanswered: 'drop' });

    expect(
      (repaired[0] as { tool_calls: { id: string; index: number }[] }).tool_calls.map((c) => [c.id, c.index]),
    ).toEqual([
      ['call_b', 0],
      ['call_c', 1],
    ]);
  });

  it('strips artifacts on messages, parts, tool calls and functions', () => {
    const messages = [
      { role: 'user', content: [{ type: 'text', text: 'hi', parsed_output: {} }] },
      {
        role: 'assistant',
        content: 'ok',
        parsed: { a: 1 },
        tool_calls: [
          { id: 'call_1', type: 'function', parsed: 1, function: { name: 'f', arguments: '{}', parsed_arguments: {} } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'r', parsed: null },
    ];

    const { messages: repaired, changes } = repairTranscript(messages);

    expect(changes.map((c) => c.message)).toEqual([
      'Stripped `content[0].parsed_output` from message 0',
      'Stripped `parsed` from message 1',
      'Stripped `tool_calls[0].parsed` from message 1',
      'Stripped `tool_calls[0].function.parsed_arguments` from message 1',
      'Stripped `parsed` from message 2',
    ]);
    expect(JSON.stringify(repaired)).not.toMatch(new RegExp(ARTIFACT_KEYS.map((key) => `"${key}"`).join('|')));
  });

  it('puts Anthropic results first in the user turn after the call, before its text', () => {
    const messages = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'f', input: {} }] },
      { role: 'user', content: 'and also this' },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'late' }] },
    ];

    const { messages: repaired } = repairTranscript(messages);

    expect(repaired).toEqual([
      messages[0],
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_1', content: 'late' },
          { type: 'text', text: 'and also this' },
        ],
      },
    ]);
  });

  it('keeps AI SDK parts it does not understand and message-level provider options', () => {
    const messages = [
      {
        role: 'assistant',
        providerOptions: { google: { thoughtSignature: 's' } },
        content: [
          { type: 'reasoning', text: 'thinking' },
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'f', input: { q: 1 }, providerOptions: { x: { y: 1 } } },
        ],
      },
    ];

    const { messages: repaired } = repairTranscript(messages);

    expect(repaired[0]).toBe(messages[0]);
    expect(repaired[1]).toMatchObject({
      role: 'tool',
      content: [{ toolCallId: 'call_1', output: { type: 'error-text' } }],
    });
  });

  it('gives a generated id the family the transcript uses and never reuses an id', () => {
    const messages = [
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'fc_1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      },
      { role: 'tool', tool_call_id: 'fc_1', content: 'r' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ type: 'function', function: { name: 'g', arguments: '{}' } }],
      },
    ];

    const { messages: repaired, changes } = repairTranscript(messages);

    expect(changes[0]).toMatchObject({ kind: 'assigned_tool_call_id', toolCallId: 'fc_hyphae_2_0', index: 2 });
    expect(validateTranscript(repaired).ok).toBe(true);
  });

  it('renames a minority family without colliding with an existing id', () => {
    const call = (id: string) => ({ id, type: 'function', function: { name: 'f', arguments: '{}' } });
    const messages = [
      { role: 'assistant', content: null, tool_calls: [call('call_1'), call('call_2'), call('fc_1')] },
      { role: 'tool', tool_call_id: 'call_1', content: 'a' },
      { role: 'tool', tool_call_id: 'call_2', content: 'b' },
      { role: 'tool', tool_call_id: 'fc_1', content: 'c' },
    ];

    const { messages: repaired } = repairTranscript(messages);

    expect(repaired.slice(1).map((m) => (m as { tool_call_id: string }).tool_call_id)).toEqual([
      'call_1',
      'call_2',
      'call_1_2',
    ]);
    expect(validateTranscript(repaired).ok).toBe(true);
  });

  it('refuses an unknown unanswered policy', () => {
    expect(() => repairTranscript([], { unanswered: 'ignore' as never })).toThrow(
      expect.objectContaining({
        code: 'invalid_argument',
        message: '`repairTranscript`: `options.unanswered` must be `drop` or `synthesize`, got `ignore`',
      }),
    );
  });
});
