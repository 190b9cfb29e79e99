import { describe, expect, it } from 'vitest';
import { TranscriptError } from '../../src/context/errors.js';
import { assertTranscript, validateTranscript } from '../../src/context/transcript/validate.js';
import { FORMATS, render } from './transcript-fixtures.js';
import { SCENARIOS } from './transcript-scenarios.js';

describe('validateTranscript: every code in every format', () => {
  for (const scenario of SCENARIOS) {
    for (const format of FORMATS) {
      it(`${scenario.name} — ${format}`, () => {
        const { messages, at } = render(scenario.items, format);

        const result = validateTranscript(messages, { format });
        const detected = validateTranscript(messages);

        const indexOf = (item: number, position = 0): number => (at[item] ?? -1) + (format === 'openai' ? position : 0);
        const expected = scenario.issues.map(([code, item, position]) => `${code}@${indexOf(item, position)}`).sort();
        expect(result.issues.map((issue) => `${issue.code}@${issue.index}`).sort()).toEqual(expected);
        expect(result.ok).toBe(expected.length === 0);
        expect(detected.format).toBe(format);
        expect(detected.issues).toEqual(result.issues);
      });
    }
  }
});

describe('validateTranscript: details', () => {
  it('names the tool call id and writes sentence-case messages with the id in backticks', () => {
    const { messages } = render(SCENARIOS.find((s) => s.name === 'unanswered_tool_call')?.items ?? [], 'openai');

    const [issue] = validateTranscript(messages).issues;

    expect(issue).toMatchObject({ code: 'unanswered_tool_call', index: 1, toolCallId: 'call_2' });
    expect(issue?.message).toMatch(/^[A-Z].*`call_2`/);
  });

  it('says when no assistant declared any call', () => {
    const { issues } = validateTranscript([{ role: 'tool', tool_call_id: 'call_x', content: 'r' }]);

    expect(issues).toEqual([expect.objectContaining({ code: 'orphaned_tool_result', toolCallId: 'call_x' })]);
    expect(issues[0]?.message).toContain('no assistant message declared any tool call');
  });

  it('allows the OpenAI developer role but not in the AI SDK or Anthropic formats', () => {
    const developer = [{ role: 'developer', content: 'rules' }];
    const system = [{ role: 'system', content: 'rules' }];

    expect(validateTranscript(developer).ok).toBe(true);
    expect(validateTranscript(developer, { format: 'ai-sdk' }).issues[0]?.code).toBe('invalid_role');
    expect(validateTranscript(system, { format: 'anthropic' }).issues[0]?.code).toBe('invalid_role');
    expect(validateTranscript([null, 'text'], { format: 'openai' }).issues.map((i) => i.code)).toEqual([
      'invalid_role',
      'invalid_role',
    ]);
  });

  it('leaves provider-executed calls out (AI SDK and Anthropic server tools)', () => {
    const aiSdk = [
      { role: 'user', content: 'search' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'ws_1', toolName: 'web_search', input: {}, providerExecuted: true },
          { type: 'tool-result', toolCallId: 'ws_1', toolName: 'web_search', output: { type: 'json', value: [] } },
        ],
      },
    ];
    const anthropic = [
      { role: 'user', content: 'search' },
      { role: 'assistant', content: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }] },
    ];

    expect(validateTranscript(aiSdk).issues).toEqual([]);
    expect(validateTranscript(anthropic, { format: 'anthropic' }).issues).toEqual([]);
  });

  it('treats AI SDK approval responses as part of the result block', () => {
    const messages = [
      { role: 'user', content: 'pay' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'call_1', toolName: 'pay', input: {} },
          { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'call_1' },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-approval-response', approvalId: 'a1', approved: true }] },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_1', toolName: 'pay', output: { type: 'text', value: 'ok' } },
        ],
      },
    ];

    expect(validateTranscript(messages).issues).toEqual([]);
  });

  it('assertTranscript throws TranscriptError with the issues', () => {
    const { messages } = render(SCENARIOS.find((s) => s.name === 'unanswered_tool_call')?.items ?? [], 'anthropic');

    const thrown = (() => {
      try {
        assertTranscript(messages);
      } catch (error) {
        return error;
      }
      return undefined;
    })();

    expect(thrown).toBeInstanceOf(TranscriptError);
    expect(thrown).toMatchObject({ code: 'transcript_invalid', issues: [{ code: 'unanswered_tool_call' }] });
    expect(() => assertTranscript([{ role: 'user', content: 'hi' }])).not.toThrow();
  });

  it('rejects an unknown format option', () => {
    expect(() => validateTranscript([], { format: 'gemini' as never })).toThrow(
      expect.objectContaining({
        code: 'invalid_argument',
        message: expect.stringMatching(/`gemini`, not a transcript format/),
      }),
    );
  });
});
