/**
 * `hyphae/mastra` and the prompt's history: Mastra mends a stored orphan result and a dangling call
 * itself; a prompt another processor broke (trimming the oldest messages) is repaired by the hyphae
 * processor before it is sent, where stock Mastra sends it broken.
 */
import { describe, expect, it } from 'vitest';
import { withGuards } from '../../src/adapters/mastra.js';
import { agentOf, billingTools, runContext, scriptedModel } from './mastra/agent.js';
import { billingGuards } from './mastra/guards.js';

/** Provider-level prompt messages, as far as the check reads them. */
type PromptMessage = { readonly role: string; readonly content: unknown };

/** The tool call ids of a prompt that break the provider's rule: orphan results and unanswered calls. */
function brokenIds(prompt: readonly PromptMessage[]): string[] {
  const open = new Set<string>();
  const called = new Set<string>();
  const broken: string[] = [];
  for (const message of prompt) {
    const parts = Array.isArray(message.content) ? (message.content as { type: string; toolCallId?: string }[]) : [];
    if (message.role !== 'tool' && open.size > 0) broken.push(...open);
    if (message.role !== 'tool') open.clear();
    for (const part of parts) {
      if (part.type === 'tool-call' && part.toolCallId !== undefined) {
        called.add(part.toolCallId);
        open.add(part.toolCallId);
      } else if (part.type === 'tool-result' && part.toolCallId !== undefined) {
        if (!called.has(part.toolCallId)) broken.push(part.toolCallId);
        open.delete(part.toolCallId);
      }
    }
  }
  return [...broken, ...open];
}

const HISTORY = [
  { role: 'user' as const, content: 'Where is order o_7?' },
  {
    role: 'assistant' as const,
    content: [{ type: 'tool-call' as const, toolCallId: 'call_old', toolName: 'lookup_order', input: { id: 'o_7' } }],
  },
  {
    role: 'tool' as const,
    content: [
      {
        type: 'tool-result' as const,
        toolCallId: 'call_old',
        toolName: 'lookup_order',
        output: { type: 'text' as const, value: '{"id":"o_7","status":"packed"}' },
      },
    ],
  },
  { role: 'user' as const, content: 'Any news on o_7?' },
];

/** A processor that keeps the prompt short by dropping its oldest non-system messages. */
const trimOldest = {
  id: 'trim-oldest',
  processLLMRequest({ prompt }: { readonly prompt: readonly PromptMessage[] }) {
    const system = prompt.filter((message) => message.role === 'system');
    const rest = prompt.filter((message) => message.role !== 'system');
    return { prompt: [...system, ...rest.slice(2)] };
  },
};

describe('hyphae/mastra: the history a request carries', () => {
  it('stock: a processor that trims the oldest messages sends an orphan tool result', async () => {
    const model = scriptedModel([{ text: 'o_7 has shipped.' }]);
    const agent = agentOf({ model, tools: billingTools().tools, inputProcessors: [trimOldest] });

    await agent.generate(HISTORY);

    expect(brokenIds(model.prompts[0] as PromptMessage[])).toEqual(['call_old']);
  });

  it('guarded: the same prompt is repaired before it is sent', async () => {
    const model = scriptedModel([{ text: 'o_7 has shipped.' }]);
    const agent = agentOf(
      withGuards(billingGuards(), { model, tools: billingTools().tools, inputProcessors: [trimOldest] }),
    );

    const result = await agent.generate(HISTORY, { requestContext: runContext('trim-1') });

    expect(brokenIds(model.prompts[0] as PromptMessage[])).toEqual([]);
    expect(result.text).toBe('o_7 has shipped.');
  });

  it('a stored orphan result and a dangling call: Mastra mends both, and the guarded run completes', async () => {
    const orphan = [HISTORY[0], HISTORY[2], HISTORY[3]];
    const dangling = [HISTORY[0], HISTORY[1], HISTORY[3]];
    for (const history of [orphan, dangling]) {
      const model = scriptedModel([{ text: 'o_7 has shipped.' }]);
      const agent = agentOf(withGuards(billingGuards(), { model, tools: billingTools().tools }));

      const result = await agent.generate(history as typeof HISTORY, { requestContext: runContext('stored-1') });

      expect(brokenIds(model.prompts[0] as PromptMessage[])).toEqual([]);
      expect(result.text).toBe('o_7 has shipped.');
    }
  });
});
