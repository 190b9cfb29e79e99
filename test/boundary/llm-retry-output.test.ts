/**
 * Output failures in a model turn: a re-runnable tool is run again up to `maxToolRetries`, then the
 * model is told and asked again from the `maxLlmRetries` budget; a mutating tool is never re-run.
 */
import { describe, expect, it, vi } from 'vitest';
import { bounded } from '../../src/boundary/bounded.js';
import type { ChatMessage, LlmAssistantMessage } from '../../src/boundary/chat.js';
import { createToolRegistry } from '../../src/boundary/create-tool-registry.js';
import { createToolRunner } from '../../src/boundary/create-tool-runner.js';
import { ToolBoundaryError, ToolBoundaryExhaustedError } from '../../src/boundary/errors.js';
import { expectOneAnswerPerId, scriptedModel } from './llm-script.js';

type Call = readonly [id: string, name: string, args: string];

function message(...calls: readonly Call[]): LlmAssistantMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: calls.map(([id, name, args]) => ({ id, type: 'function', function: { name, arguments: args } })),
  };
}

/** `stats` returns `{ n: 'many' }` (invalid) for `{"scope":"all"}` and a count otherwise. */
function setup(options: { maxLlmRetries?: number; maxToolRetries?: number } = {}) {
  const statsBody = vi.fn(({ scope }: { scope: string }) => (scope === 'all' ? { n: 'many' } : { n: 2 }));
  const noteBody = vi.fn(() => 'noted');
  const refundBody = vi.fn(() => ({ refunded: 'yes' }));
  const registry = createToolRegistry({ allowed: ['stats', 'note', 'issue_refund'] });
  registry.register(
    'stats',
    bounded(
      {
        name: 'stats',
        sideEffectClass: 'read',
        schema: { scope: { type: 'string' } },
        outputSchema: { n: { type: 'integer' } },
      },
      statsBody,
    ),
  );
  registry.register('note', bounded({ name: 'note', sideEffectClass: 'read', schema: {} }, noteBody));
  registry.register(
    'issue_refund',
    bounded(
      {
        name: 'issue_refund',
        sideEffectClass: 'non_idempotent_mutate',
        schema: { amount: { type: 'number' } },
        outputSchema: { refunded: { type: 'boolean' } },
      },
      refundBody,
    ),
  );
  const runner = createToolRunner({ registry, maxLlmRetries: 2, maxToolRetries: 1, ...options });
  return { runner, statsBody, noteBody, refundBody };
}

const user: ChatMessage = { role: 'user', content: 'How many orders?' };

describe('runWithLlmRetry: outputs that fail validation', () => {
  it('retries the tool, then tells the model and asks it again', async () => {
    const { runner, statsBody } = setup();
    const model = scriptedModel([
      message(['s1', 'stats', '{"scope":"all"}']),
      message(['s2', 'stats', '{"scope":"open"}']),
    ]);

    const turn = await runner.runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user] });

    expect(statsBody).toHaveBeenCalledTimes(3);
    expect(model.invokeLlm).toHaveBeenCalledTimes(2);
    expect(model.seen[1]?.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 's1' });
    expect(model.seen[1]?.at(-1)?.content).toContain('failed 2 times');
    expect(model.seen[1]?.at(-1)?.content).toContain('returned an invalid result');
    expect(turn.llmRetries).toBe(1);
    expect(turn.results).toMatchObject([
      { id: 's1', name: 'stats', ok: false, error: { budget: 'tool_retries', attempts: 2 } },
      { id: 's2', name: 'stats', ok: true, output: { n: 2 } },
    ]);
    expectOneAnswerPerId(turn.messages);
  });

  it('raises ToolBoundaryExhaustedError once the model attempts are used up', async () => {
    const { runner, statsBody } = setup({ maxLlmRetries: 1, maxToolRetries: 2 });
    const model = scriptedModel([
      message(['s1', 'stats', '{"scope":"all"}']),
      message(['s2', 'stats', '{"scope":"all"}']),
    ]);

    const error = (await runner
      .runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user] })
      .catch((e: unknown) => e)) as ToolBoundaryExhaustedError;

    expect(error).toBeInstanceOf(ToolBoundaryExhaustedError);
    expect(error).toMatchObject({ budget: 'llm_retries', attempts: 2, tool: 'stats' });
    expect(error.lastError).toMatchObject({ budget: 'tool_retries', attempts: 3 });
    expect((error.lastError as ToolBoundaryExhaustedError).lastError).toBeInstanceOf(ToolBoundaryError);
    expect(model.invokeLlm).toHaveBeenCalledTimes(2);
    expect(statsBody).toHaveBeenCalledTimes(6);
    expectOneAnswerPerId(error.transcript ?? []);
  });

  it('keeps the calls that ran before the failing one, and answers the ones after it as not run', async () => {
    const { runner, noteBody } = setup();
    const model = scriptedModel([
      message(['n1', 'note', '{}'], ['s1', 'stats', '{"scope":"all"}'], ['n2', 'note', '{}']),
      { role: 'assistant', content: 'There are many orders.' },
    ]);

    const turn = await runner.runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user] });

    expect(noteBody).toHaveBeenCalledTimes(1);
    expect(turn.results.map((result) => [result.id, result.ok])).toEqual([
      ['n1', true],
      ['s1', false],
    ]);
    const answers = turn.messages.filter((m) => m.role === 'tool');
    expect(answers.map((m) => m.tool_call_id)).toEqual(['n1', 's1', 'n2']);
    expect(answers[2]?.content).toContain('NOT executed');
    expectOneAnswerPerId(turn.messages);
  });

  it('refuses a retry that reuses the call id of the round that ran', async () => {
    const { runner, statsBody } = setup();
    const model = scriptedModel([
      message(['s1', 'stats', '{"scope":"all"}']),
      message(['s1', 'stats', '{"scope":"open"}']),
    ]);

    const turn = runner.runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user] });

    await expect(turn).rejects.toMatchObject({ code: 'duplicate_tool_call_id' });
    expect(statsBody).toHaveBeenCalledTimes(2);
  });

  it('never runs a mutating tool again, nor asks the model again, when its output failed', async () => {
    const { runner, refundBody } = setup();
    const model = scriptedModel([message(['r1', 'issue_refund', '{"amount":10}'])]);

    const turn = await runner.runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user] });

    expect(refundBody).toHaveBeenCalledTimes(1);
    expect(model.invokeLlm).toHaveBeenCalledTimes(1);
    expect(turn.results).toMatchObject([{ id: 'r1', ok: false, error: { executed: true } }]);
    expect(turn.messages.at(-1)?.content).toContain('WAS executed');
  });
});
