import { describe, expect, it, vi } from 'vitest';
import { bounded } from '../../src/boundary/bounded.js';
import type { ChatMessage, LlmAssistantMessage } from '../../src/boundary/chat.js';
import { createToolRegistry } from '../../src/boundary/create-tool-registry.js';
import { createToolRunner } from '../../src/boundary/create-tool-runner.js';
import { ToolBoundaryError, ToolBoundaryExhaustedError } from '../../src/boundary/errors.js';
import { expectOneAnswerPerId, scriptedModel } from './llm-script.js';

function call(id: string, name: string, args: string): LlmAssistantMessage {
  return {
    role: 'assistant',
    content: null,
    tool_calls: [{ id, type: 'function', function: { name, arguments: args } }],
  };
}

function setup(maxLlmRetries = 2) {
  const fetchBody = vi.fn(({ customer_id }: { customer_id: string }) => ({ id: customer_id, name: 'Ada' }));
  const refundBody = vi.fn(() => ({ refunded: 'yes' }));
  const registry = createToolRegistry({ allowed: ['fetch_customer', 'issue_refund'] });
  registry.register(
    'fetch_customer',
    bounded(
      {
        name: 'fetch_customer',
        sideEffectClass: 'read',
        schema: { customer_id: { type: 'string', pattern: '^c\\d+$' } },
      },
      fetchBody,
    ),
  );
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
  const runner = createToolRunner({ registry, maxLlmRetries, maxToolRetries: 2 });
  return { runner, fetchBody, refundBody };
}

const user: ChatMessage = { role: 'user', content: 'Look up customer 42' };

describe('runWithLlmRetry', () => {
  it('keeps one tool message per call id when the model reuses the id across retries', async () => {
    const { runner, fetchBody } = setup();
    const model = scriptedModel([
      call('call_1', 'fetch_customer', '{"customer_id":"42"}'),
      call('call_1', 'fetch_customer', '{"customer_id":"C42"}'),
      call('call_1', 'fetch_customer', '{"customer_id":"c42"}'),
    ]);
    const messages = [user];

    const turn = await runner.runWithLlmRetry({ invokeLlm: model.invokeLlm, messages });

    expect(turn.llmRetries).toBe(2);
    expect(fetchBody).toHaveBeenCalledTimes(1);
    expect(turn.messages.filter((m) => m.role === 'tool')).toEqual([
      { role: 'tool', tool_call_id: 'call_1', content: '{"id":"c42","name":"Ada"}' },
    ]);
    expect(turn.messages).toHaveLength(3);
    expectOneAnswerPerId(turn.messages);
    for (const transcript of model.seen) expectOneAnswerPerId(transcript);
    // The model saw its mistake before each retry.
    expect(model.seen[1]?.at(-1)?.content).toContain('`/customer_id`');
    expect(model.seen[1]?.at(-1)?.content).toContain('NOT executed');
    expect(messages).toEqual([user]);
    expect(turn.results).toEqual([
      { id: 'call_1', name: 'fetch_customer', ok: true, output: { id: 'c42', name: 'Ada' } },
    ]);
  });

  it('keeps one tool message per call id when the model uses fresh ids', async () => {
    const { runner } = setup();
    const model = scriptedModel([
      call('call_1', 'fetch_customer', 'customer_id=42'),
      call('call_2', 'fetch_customr', '{"customer_id":"c42"}'),
      call('call_3', 'fetch_customer', '{"customer_id":"c42"}'),
    ]);

    const turn = await runner.runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user] });

    expectOneAnswerPerId(turn.messages);
    const answers = turn.messages.filter((m) => m.role === 'tool');
    expect(answers.map((m) => m.tool_call_id)).toEqual(['call_1', 'call_2', 'call_3']);
    expect(answers[0]?.content).toContain('not a valid JSON object');
    expect(answers[1]?.content).toContain('The tool `fetch_customr` does not exist');
  });

  it('gives up after maxLlmRetries with the last refusal and a well-formed transcript', async () => {
    const { runner, fetchBody } = setup(2);
    const model = scriptedModel([call('call_1', 'fetch_customer', '{"customer_id":1}')]);

    const error = (await runner
      .runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user] })
      .catch((e: unknown) => e)) as ToolBoundaryExhaustedError;

    expect(error).toBeInstanceOf(ToolBoundaryExhaustedError);
    expect(error).toMatchObject({ budget: 'llm_retries', attempts: 3, tool: 'fetch_customer' });
    expect(error.lastError).toBeInstanceOf(ToolBoundaryError);
    expect(error.lastError).toMatchObject({ violation: 'type_mismatch', field: '/customer_id' });
    expect(model.invokeLlm).toHaveBeenCalledTimes(3);
    expect(fetchBody).not.toHaveBeenCalled();
    expectOneAnswerPerId(error.transcript ?? []);
    expect(error.transcript?.filter((m) => m.role === 'tool')).toHaveLength(1);
  });

  it('runs none of a turn’s calls while one is refused, and answers each of them', async () => {
    const { runner, fetchBody, refundBody } = setup();
    const both = (amount: string): LlmAssistantMessage => ({
      role: 'assistant',
      tool_calls: [
        { id: 'a', type: 'function', function: { name: 'fetch_customer', arguments: '{"customer_id":"c1"}' } },
        { id: 'b', type: 'function', function: { name: 'issue_refund', arguments: `{"amount":${amount}}` } },
      ],
    });
    const model = scriptedModel([both('"ten"'), both('10')]);

    const turn = await runner.runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user] });

    const firstRound = model.seen[1]?.filter((m) => m.role === 'tool') ?? [];
    expect(firstRound.map((m) => m.tool_call_id)).toEqual(['a', 'b']);
    expect(firstRound[0]?.content).toContain('another tool call in the same message was refused');
    expect(fetchBody).toHaveBeenCalledTimes(1);
    expect(refundBody).toHaveBeenCalledTimes(1);
    expectOneAnswerPerId(turn.messages);
  });

  it('does not re-run a write whose output failed; the model is told instead', async () => {
    const { runner, refundBody } = setup();
    const model = scriptedModel([call('r1', 'issue_refund', '{"amount":10}')]);

    const turn = await runner.runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user] });

    expect(refundBody).toHaveBeenCalledTimes(1);
    expect(model.invokeLlm).toHaveBeenCalledTimes(1);
    const [result] = turn.results;
    expect(result).toMatchObject({ id: 'r1', ok: false });
    expect(result?.ok === false && result.error).toMatchObject({
      violation: 'output_validation_failed',
      executed: true,
    });
    expect(turn.messages.at(-1)).toMatchObject({ role: 'tool', tool_call_id: 'r1' });
    expect(turn.messages.at(-1)?.content).toContain('WAS executed');
  });

  it('re-runs a read whose output failed, within one turn', async () => {
    let calls = 0;
    const registry = createToolRegistry({ allowed: ['stats'] });
    registry.register(
      'stats',
      bounded({ name: 'stats', sideEffectClass: 'read', schema: {}, outputSchema: { n: { type: 'integer' } } }, () =>
        ++calls === 1 ? { n: 'many' } : { n: 2 },
      ),
    );
    const runner = createToolRunner({ registry });
    const model = scriptedModel([call('s1', 'stats', '{}')]);

    const turn = await runner.runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user] });

    expect(calls).toBe(2);
    expect(turn.results).toEqual([{ id: 's1', name: 'stats', ok: true, output: { n: 2 } }]);
  });

  it('ends at once when the model answers without tool calls', async () => {
    const { runner } = setup();
    const reply: LlmAssistantMessage = { role: 'assistant', content: 'Hello' };

    const turn = await runner.runWithLlmRetry({ invokeLlm: () => reply, messages: [user] });

    expect(turn).toEqual({ messages: [user, reply], assistant: reply, results: [], llmRetries: 0 });
  });

  it('refuses a call id that the transcript already answered', async () => {
    const { runner, fetchBody } = setup();
    const history: ChatMessage[] = [
      user,
      call('call_1', 'fetch_customer', '{"customer_id":"c1"}'),
      { role: 'tool', tool_call_id: 'call_1', content: '{}' },
    ];

    const turn = runner.runWithLlmRetry({
      invokeLlm: () => call('call_1', 'fetch_customer', '{"customer_id":"c2"}'),
      messages: history,
    });

    await expect(turn).rejects.toMatchObject({ code: 'duplicate_tool_call_id' });
    expect(fetchBody).not.toHaveBeenCalled();
  });

  it('uses a per-turn argument parser', async () => {
    const { runner } = setup();
    const model = scriptedModel([call('p1', 'fetch_customer', 'customer_id=c5')]);
    const parseToolArgs = (raw: string) => Object.fromEntries([raw.split('=')]);

    const turn = await runner.runWithLlmRetry({ invokeLlm: model.invokeLlm, messages: [user], parseToolArgs });

    expect(turn.results[0]).toMatchObject({ ok: true, output: { id: 'c5' } });
  });

  it('gives up on a read that keeps failing, leaving every call of the message answered once', async () => {
    const registry = createToolRegistry({ allowed: ['flaky', 'after'] });
    const after = vi.fn(() => 'later');
    registry.register(
      'flaky',
      bounded({ name: 'flaky', sideEffectClass: 'read', schema: {} }, () => Promise.reject(new Error('down'))),
    );
    registry.register('after', bounded({ name: 'after', sideEffectClass: 'read', schema: {} }, after));
    const runner = createToolRunner({ registry, maxToolRetries: 1 });
    const reply: LlmAssistantMessage = {
      role: 'assistant',
      tool_calls: [
        { id: 'f1', type: 'function', function: { name: 'flaky', arguments: '{}' } },
        { id: 'a1', type: 'function', function: { name: 'after', arguments: '{}' } },
      ],
    };

    const error = (await runner
      .runWithLlmRetry({ invokeLlm: () => reply, messages: [user] })
      .catch((e: unknown) => e)) as ToolBoundaryExhaustedError;

    expect(error).toBeInstanceOf(ToolBoundaryExhaustedError);
    expect(error).toMatchObject({ budget: 'tool_retries', attempts: 2, tool: 'flaky' });
    expect((error.lastError as Error).message).toBe('down');
    expect(after).not.toHaveBeenCalled();
    expectOneAnswerPerId(error.transcript ?? []);
  });

  it('stops before asking the model when the signal is aborted', async () => {
    const { runner } = setup();
    const controller = new AbortController();
    controller.abort(new Error('user left'));
    const invokeLlm = vi.fn(() => call('x', 'fetch_customer', '{}'));

    await expect(runner.runWithLlmRetry({ invokeLlm, messages: [user], signal: controller.signal })).rejects.toThrow(
      'user left',
    );
    expect(invokeLlm).not.toHaveBeenCalled();
  });
});
