/**
 * `hyphae/mastra` over the real `@mastra/core` `Agent` with a scripted model: a stopped run ends
 * with no further model request, the refusal's note as its text and the verdict on its last step,
 * the loop fuse lets the step cap be lifted, the budget refuses the request past its ceiling, a
 * refused call reaches the model as the error result of its own call id.
 */
import { describe, expect, it } from 'vitest';
import {
  createGuardPipeline,
  type GuardEvent,
  guardMastraTools,
  hyphaeProcessor,
  stoppedVerdictOf,
  withGuards,
} from '../../src/adapters/mastra.js';
import { budgetFuse, createFuseBox, type FuseEvent } from '../../src/index.js';
import { agentOf, billingTools, repeating, runContext, type Step, scriptedModel } from './mastra/agent.js';
import { billingGuards } from './mastra/guards.js';

const polls = (n: number): Step[] => repeating(n, 'poll_status', { job: 'export_1' });

describe('hyphae/mastra: stopping a run', () => {
  it('stock: a legitimate 6-step polling job hits the default 5-step cap and returns no answer', async () => {
    const model = scriptedModel([...polls(5), { text: 'The export is done.' }]);
    const billing = billingTools();
    const agent = agentOf({ model, tools: billing.tools });

    const result = await agent.generate('Export, and tell me when done');

    expect([billing.polls(), model.prompts.length, result.text]).toEqual([5, 5, '']);
  });

  it('guarded with a higher maxSteps: the polling job finishes, nothing refused', async () => {
    const model = scriptedModel([...polls(5), { text: 'The export is done.' }]);
    const billing = billingTools();
    const agent = agentOf(withGuards(billingGuards(), { model, tools: billing.tools }));

    const result = await agent.generate('Export, and tell me when done', {
      maxSteps: 25,
      requestContext: runContext('poll-1'),
    });

    expect([billing.polls(), model.prompts.length, result.text]).toEqual([5, 6, 'The export is done.']);
    expect(stoppedVerdictOf(result)).toBeUndefined();
  });

  it('ends an identical-call loop after 2 executions and 3 model requests, with the note and the verdict', async () => {
    const model = scriptedModel(repeating(30, 'lookup_order', { id: 'o_7' }));
    const billing = billingTools();
    const events: GuardEvent[] = [];
    const pipeline = billingGuards({ events });
    const agent = agentOf(withGuards(pipeline, { model, tools: billing.tools }));

    const result = await agent.generate('Where is o_7?', { maxSteps: 25, requestContext: runContext('loop-1') });

    expect([billing.lookups(), model.prompts.length]).toEqual([2, 3]);
    const stopped = pipeline.forRun({ threadId: 'thread-1', runId: 'loop-1' }).stopped;
    expect(stopped?.code).toBe('loop_repeat');
    expect([result.finishReason, result.text, result.error, result.tripwire]).toEqual([
      'stop',
      stopped?.message,
      undefined,
      undefined,
    ]);
    expect(result.text).toMatch(/`lookup_order` was NOT executed/);
    expect(stoppedVerdictOf(result)).toEqual({
      code: 'loop_repeat',
      stage: 'fuses',
      terminal: true,
      reason: stopped?.reason,
    });
    expect(stoppedVerdictOf(result.steps.at(-1))?.code).toBe('loop_repeat');
    expect(result.response.messages?.at(-1)).toMatchObject({
      role: 'assistant',
      content: [{ type: 'text', text: stopped?.message }],
    });
    expect(events.filter((event) => event.type === 'model_call').map((event) => event.status)).toEqual([
      'allowed',
      'allowed',
      'allowed',
      'refused',
    ]);
  });

  it('ends a streamed loop the same way: the note is streamed as the last text', async () => {
    const model = scriptedModel(repeating(30, 'lookup_order', { id: 'o_7' }));
    const billing = billingTools();
    const pipeline = billingGuards();
    const agent = agentOf(withGuards(pipeline, { model, tools: billing.tools }));

    const output = await agent.stream('Where is o_7?', { maxSteps: 25, requestContext: runContext('loop-2') });
    const parts: string[] = [];
    let streamed = '';
    for await (const part of output.fullStream) {
      parts.push(part.type);
      if (part.type === 'text-delta') streamed += part.payload.text;
    }

    const note = pipeline.forRun({ threadId: 'thread-1', runId: 'loop-2' }).stopped?.message;
    expect([billing.lookups(), model.prompts.length]).toEqual([2, 3]);
    expect(parts).not.toContain('tripwire');
    expect(parts).not.toContain('error');
    expect(parts.at(-1)).toBe('finish');
    expect([streamed, await output.text, await output.finishReason]).toEqual([note, note, 'stop']);
    expect(note).toMatch(/NOT executed/);
    const full = await output.getFullOutput();
    expect([full.text, stoppedVerdictOf(full)?.code]).toEqual([note, 'loop_repeat']);
  });

  it('answers the refused call with its own call id: the model reads that it did NOT happen', async () => {
    const model = scriptedModel([
      { calls: [{ id: 'call_refund', name: 'refund', input: { order: 'o_7', amount: 40 } }] },
      { text: 'I could not refund.' },
    ]);
    const billing = billingTools();
    const agent = agentOf(withGuards(billingGuards(), { model, tools: billing.tools }));

    const result = await agent.generate('Refund o_7', { requestContext: runContext('perm-1') });

    expect([billing.refunds(), result.text]).toEqual([0, 'I could not refund.']);
    const answer = model.prompts[1]?.at(-1);
    expect(answer).toMatchObject({
      role: 'tool',
      content: [{ type: 'tool-result', toolCallId: 'call_refund', output: { type: 'error-text' } }],
    });
    expect(JSON.stringify(answer)).toMatch(/refund.*NOT/);
  });

  it('a run without a run id is its own run: a stopped run does not stop the next one', async () => {
    const pipeline = billingGuards();
    const billing = billingTools();
    const first = scriptedModel(repeating(30, 'lookup_order', { id: 'o_7' }));
    const second = scriptedModel([
      { calls: [{ id: 'c1', name: 'lookup_order', input: { id: 'o_7' } }] },
      { text: 'ok' },
    ]);

    const stopped = await agentOf(withGuards(pipeline, { model: first, tools: billing.tools })).generate('loop', {
      maxSteps: 25,
    });
    const next = await agentOf(withGuards(pipeline, { model: second, tools: billing.tools })).generate('once');

    expect([stoppedVerdictOf(stopped)?.code, stopped.text]).toEqual(['loop_repeat', expect.stringMatching(/NOT/)]);
    expect([stoppedVerdictOf(next), next.text]).toEqual([undefined, 'ok']);
  });
});

describe('hyphae/mastra: the budget', () => {
  it('prices each step from its usage and sends no request past the ceiling', async () => {
    const spend = (i: number): Step => ({
      calls: [{ id: `call_${i}`, name: 'lookup_order', input: { id: `o_${i}` } }],
      usage: {
        inputTokens: { total: 3_000 * (i + 1), noCache: 3_000 * (i + 1), cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 500, text: 500, reasoning: 0 },
      },
    });
    const model = scriptedModel(Array.from({ length: 8 }, (_, i) => spend(i)));
    const billing = billingTools();
    const pipeline = billingGuards({ maxTokens: 20_000 });
    const agent = agentOf(withGuards(pipeline, { model, tools: billing.tools }));

    const result = await agent.generate('Summarise c_9', { maxSteps: 25, requestContext: runContext('budget-1') });

    const spent = model.prompts.reduce((sum, _prompt, i) => sum + 3_000 * (i + 1) + 500, 0);
    expect(spent).toBeLessThanOrEqual(20_000);
    expect(model.prompts.length).toBeGreaterThan(1);
    // Every call the model made ran; the request past the ceiling was answered with the note.
    expect(billing.lookups()).toBe(model.prompts.length);
    const stopped = pipeline.forRun({ threadId: 'thread-1', runId: 'budget-1' }).stopped;
    expect([result.finishReason, result.text, result.error]).toEqual(['stop', stopped?.message, undefined]);
    expect(stoppedVerdictOf(result)?.code).toMatch(/^budget_/);
  });
});

describe('hyphae/mastra: the completion cap the budget assumes', () => {
  const lookupThenAnswer = (): Step[] => [
    { calls: [{ id: 'c1', name: 'lookup_order', input: { id: 'o_7' } }] },
    { text: 'o_7 has shipped.' },
  ];

  it('prices an uncapped request at the default cap: under a small budget it is not sent', async () => {
    const model = scriptedModel(lookupThenAnswer());
    const agent = agentOf(withGuards(billingGuards({ maxTokens: 3_000 }), { model, tools: billingTools().tools }));

    const result = await agent.generate('Where is o_7?', { requestContext: runContext('cap-1') });

    expect([model.prompts.length, stoppedVerdictOf(result)?.code]).toEqual([0, 'budget_tokens_exceeded']);
    expect(result.text).toMatch(/NOT/);
  });

  it('a streamed run whose first request cannot fit ends with the note, by the pieces wired by hand', async () => {
    const model = scriptedModel(lookupThenAnswer());
    const billing = billingTools();
    const pipeline = billingGuards({ maxTokens: 3_000 });
    const processor = hyphaeProcessor(pipeline);
    const agent = agentOf({
      model,
      tools: guardMastraTools(billing.tools, pipeline),
      inputProcessors: [processor],
      outputProcessors: [processor],
    });

    const output = await agent.stream('Where is o_7?', { requestContext: runContext('cap-3') });
    const parts: string[] = [];
    for await (const part of output.fullStream) parts.push(part.type);
    const full = await output.getFullOutput();

    expect([model.prompts.length, billing.lookups()]).toEqual([0, 0]);
    expect(parts).toEqual(['start', 'text-start', 'text-delta', 'text-end', 'step-finish', 'finish']);
    expect([full.finishReason, full.error, stoppedVerdictOf(full)?.code]).toEqual([
      'stop',
      undefined,
      'budget_tokens_exceeded',
    ]);
    expect(full.text).toMatch(/NOT/);
  });

  it('prices a request at the `maxOutputTokens` of its model settings', async () => {
    const model = scriptedModel(lookupThenAnswer());
    const agent = agentOf(withGuards(billingGuards({ maxTokens: 3_000 }), { model, tools: billingTools().tools }));

    const result = await agent.generate('Where is o_7?', {
      modelSettings: { maxOutputTokens: 200 },
      requestContext: runContext('cap-2'),
    });

    expect([model.prompts.length, result.text]).toEqual([2, 'o_7 has shipped.']);
  });
});

describe('hyphae/mastra: two deliveries of one run at once', () => {
  it('one agent books each request’s own usage against its own reservation', async () => {
    const events: FuseEvent[] = [];
    const pipeline = createGuardPipeline({
      fuses: createFuseBox({ budget: budgetFuse({ maxTokens: 1_000_000 }), onEvent: (event) => events.push(event) }),
    });
    const spend = (input: number): Step => ({
      calls: [{ id: `c_${input}`, name: 'lookup_order', input: { id: `o_${input}` } }],
      usage: {
        inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 10, text: 10, reasoning: 0 },
      },
    });
    const model = scriptedModel([spend(100), spend(200), { text: 'done' }, { text: 'done' }]);
    // Both first requests are in flight before either is answered.
    let arrivals = 0;
    let bothArrived = () => {};
    const barrier = new Promise<void>((resolve) => {
      bothArrived = resolve;
    });
    const answer = model.doGenerate.bind(model);
    model.doGenerate = async (options) => {
      if (++arrivals === 2) bothArrived();
      await barrier;
      return answer(options);
    };
    const agent = agentOf(withGuards(pipeline, { model, tools: billingTools().tools }));
    const deliver = () => agent.generate('Where is my order?', { requestContext: runContext('twice-at-once') });

    await Promise.all([deliver(), deliver()]);

    const bookings = events.flatMap((event) => (event.type === 'model_usage' ? [event] : []));
    expect(bookings.map((event) => event.reading.status)).toEqual(['ok', 'ok', 'ok', 'ok']);
    const inputs = bookings.map((event) => (event.reading.status === 'ok' ? event.reading.inputTokens : 0));
    expect(inputs.sort((a, b) => a - b)).toEqual([10, 10, 100, 200]);
  });
});
