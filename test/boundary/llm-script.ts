/**
 * A scripted model for the LLM-retry runner's tests, and the transcript rule every run must keep.
 */
import { expect, vi } from 'vitest';
import type { ChatMessage, LlmAssistantMessage } from '../../src/boundary/chat.js';
import type { InvokeLlm } from '../../src/boundary/llm-turn.js';

/** A model that answers from a script (the last reply repeats) and records every transcript it was shown. */
export function scriptedModel(replies: readonly LlmAssistantMessage[]) {
  const seen: (readonly ChatMessage[])[] = [];
  const invokeLlm: InvokeLlm = vi.fn(({ messages }) => {
    seen.push(messages);
    const reply = replies[Math.min(seen.length - 1, replies.length - 1)];
    if (reply === undefined) throw new Error('script is empty');
    return reply;
  });
  return { invokeLlm, seen };
}

/** Every tool call id is proposed once and answered by exactly one tool message after it. */
export function expectOneAnswerPerId(messages: readonly ChatMessage[]): void {
  const proposed = messages.flatMap((m, index) => (m.tool_calls ?? []).map((c) => ({ id: c.id, index })));
  const answers = messages.flatMap((m, index) => (m.role === 'tool' ? [{ id: m.tool_call_id, index }] : []));
  expect(new Set(proposed.map((p) => p.id)).size).toBe(proposed.length);
  expect(answers.map((a) => a.id).sort()).toEqual(proposed.map((p) => p.id).sort());
  for (const { id, index } of proposed) {
    expect(answers.find((a) => a.id === id)?.index, `tool call ${id} is answered after it`).toBeGreaterThan(index);
  }
}
