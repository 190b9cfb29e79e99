/**
 * Deterministic synthetic transcripts for the context benchmark, in the three formats.
 *
 * A conversation is a loop of: user turn → assistant turn with 1–3 tool calls → their results →
 * assistant answer. Roughly one loop in fifty carries a defect (an orphan result, an unanswered
 * call, a result after the next user turn, a duplicated result), so repair has real work to do.
 */
import type { TranscriptFormat } from '../../src/context/transcript/types.js';

type Msg = Record<string, unknown>;

/** A small deterministic PRNG (mulberry32), so every run measures the same transcripts. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = [
  'order',
  'refund',
  'customer',
  'invoice',
  'status',
  'shipping',
  'address',
  'weather',
  'report',
  'balance',
];

function sentence(rand: () => number, words: number): string {
  const out: string[] = [];
  for (let i = 0; i < words; i++) out.push(WORDS[Math.floor(rand() * WORDS.length)] ?? 'x');
  return out.join(' ');
}

interface Call {
  readonly id: string;
  readonly name: string;
  readonly args: Record<string, unknown>;
}

function assistantWithCalls(format: TranscriptFormat, calls: readonly Call[]): Msg {
  if (format === 'openai') {
    return {
      role: 'assistant',
      content: null,
      tool_calls: calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: JSON.stringify(c.args) },
      })),
    };
  }
  if (format === 'ai-sdk') {
    return {
      role: 'assistant',
      content: calls.map((c) => ({ type: 'tool-call', toolCallId: c.id, toolName: c.name, input: c.args })),
    };
  }
  return {
    role: 'assistant',
    content: calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: c.args })),
  };
}

function results(format: TranscriptFormat, calls: readonly Call[], text: (c: Call) => string): Msg[] {
  if (format === 'openai') return calls.map((c) => ({ role: 'tool', tool_call_id: c.id, content: text(c) }));
  if (format === 'ai-sdk') {
    return [
      {
        role: 'tool',
        content: calls.map((c) => ({
          type: 'tool-result',
          toolCallId: c.id,
          toolName: c.name,
          output: { type: 'text', value: text(c) },
        })),
      },
    ];
  }
  return [{ role: 'user', content: calls.map((c) => ({ type: 'tool_result', tool_use_id: c.id, content: text(c) })) }];
}

/** A transcript of about `size` messages in `format`. */
export function syntheticTranscript(format: TranscriptFormat, size: number, seed = 42): Msg[] {
  const rand = random(seed);
  const prefix = format === 'anthropic' ? 'toolu_' : 'call_';
  const messages: Msg[] = [];
  let next = 0;
  while (messages.length < size) {
    messages.push({ role: 'user', content: sentence(rand, 12) });
    const calls: Call[] = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => ({
      id: `${prefix}${(next++).toString(36).padStart(8, '0')}`,
      name: WORDS[Math.floor(rand() * WORDS.length)] ?? 'lookup',
      args: { id: Math.floor(rand() * 1e6), q: sentence(rand, 3) },
    }));
    messages.push(assistantWithCalls(format, calls));
    const defect = rand() < 0.02 ? Math.floor(rand() * 4) : -1;
    const answered = defect === 1 ? calls.slice(1) : calls;
    messages.push(...results(format, answered, (c) => `${c.name}: ${sentence(rand, 20)}`));
    if (defect === 0)
      messages.push(...results(format, [{ id: `${prefix}orphan${next}`, name: 'x', args: {} }], () => 'orphan'));
    if (defect === 3 && calls[0] !== undefined) messages.push(...results(format, [calls[0]], () => 'retry'));
    messages.push({ role: 'assistant', content: sentence(rand, 25) });
    if (defect === 2) {
      messages.push({ role: 'user', content: 'and?' });
      const late = { id: `${prefix}late${next}`, name: 'late', args: {} };
      messages.splice(messages.length - 2, 0, assistantWithCalls(format, [late]));
      messages.push(...results(format, [late], () => 'late result'));
    }
  }
  return messages.slice(0, size);
}
