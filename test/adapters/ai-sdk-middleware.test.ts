import { generateText, isStepCount, type ModelMessage, streamText, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createGuardPipeline,
  type GuardEvent,
  guardTools,
  hyphaeMiddleware,
  hyphaeStopWhen,
} from '../../src/adapters/ai-sdk.js';
import { budgetFuse, createFuseBox } from '../../src/index.js';
import { scriptedModel, usage } from '../helpers/ai-sdk-model.js';

function budgetGuards(maxTokens: number) {
  const fuses = createFuseBox({ budget: budgetFuse({ maxTokens }) });
  const events: GuardEvent[] = [];
  const guards = createGuardPipeline({ fuses, onEvent: (event) => events.push(event) }).forRun({ runId: 'r' });
  return { fuses, guards, events, budget: () => fuses.forRun('r').stats().budget };
}

const lookupTool = () => tool({ inputSchema: z.object({ id: z.number() }), execute: async ({ id }) => ({ id }) });

describe('hyphaeMiddleware', () => {
  it('drops an orphan tool result at the provider boundary', async () => {
    const { guards, events } = budgetGuards(100_000);
    const model = scriptedModel([{ text: 'ok' }]);
    const messages: ModelMessage[] = [
      { role: 'user', content: 'hi' },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'call_gone', toolName: 'lookup', output: { type: 'text', value: 'x' } },
        ],
      },
      { role: 'user', content: 'still there?' },
    ];
    await generateText({ model: wrapLanguageModel({ model, middleware: hyphaeMiddleware(guards) }), messages });
    expect(model.prompts[0]?.map((message) => message.role)).toEqual(['user', 'user']);
    expect(events.some((event) => event.type === 'transcript_repair')).toBe(true);
  });

  it('answers an unanswered call when the history is repaired before the SDK sees it', async () => {
    const { guards } = budgetGuards(100_000);
    const model = scriptedModel([{ text: 'ok' }]);
    const history: ModelMessage[] = [
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: [{ type: 'tool-call', toolCallId: 'call_lost', toolName: 'lookup', input: {} }] },
      { role: 'user', content: 'still there?' },
    ];
    // The SDK itself refuses a call without a result (MissingToolResultsError) before any middleware runs.
    const messages = guards.repairTranscript(history, { format: 'ai-sdk' });
    await generateText({ model: wrapLanguageModel({ model, middleware: hyphaeMiddleware(guards) }), messages });
    const answer = model.prompts[0]?.find((message) => message.role === 'tool');
    expect(answer?.content).toMatchObject([
      { type: 'tool-result', toolCallId: 'call_lost', output: { type: 'error-text' } },
    ]);
  });

  it('refuses a call the budget cannot cover and sends nothing: the answer is the note, with the verdict', async () => {
    const { guards } = budgetGuards(1_000);
    const model = scriptedModel([{ text: 'never' }]);
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: hyphaeMiddleware(guards) }),
      prompt: 'hi',
      maxOutputTokens: 2_000,
    });
    expect(result.text).toContain('NOT');
    expect(result.providerMetadata?.hyphae).toMatchObject({ stage: 'model', code: 'budget_tokens_exceeded' });
    expect(model.prompts).toHaveLength(0);
  });

  it('caps an uncapped call under a budget so the pre-flight estimate is an upper bound', async () => {
    const { guards } = budgetGuards(100_000);
    const model = scriptedModel([{ text: 'ok' }]);
    await generateText({ model: wrapLanguageModel({ model, middleware: hyphaeMiddleware(guards) }), prompt: 'hi' });
    expect(model.doGenerateCalls[0]?.maxOutputTokens).toBe(4096);
    const unbudgeted = scriptedModel([{ text: 'ok' }]);
    const middleware = hyphaeMiddleware(createGuardPipeline().forRun({ runId: 'free' }));
    await generateText({ model: wrapLanguageModel({ model: unbudgeted, middleware }), prompt: 'hi' });
    expect(unbudgeted.doGenerateCalls[0]?.maxOutputTokens).toBeUndefined();
  });

  it('books the real usage of generated calls in place of their reservations', async () => {
    const { guards, budget } = budgetGuards(100_000);
    const model = scriptedModel([
      { calls: [{ id: 'call_1', name: 'lookup', input: { id: 1 } }], usage: usage(100, 20) },
      { text: 'done', usage: usage(150, 30) },
    ]);
    await generateText({
      model: wrapLanguageModel({ model, middleware: hyphaeMiddleware(guards) }),
      prompt: 'look it up',
      tools: guardTools({ lookup: lookupTool() }, guards),
      stopWhen: isStepCount(5),
    });
    expect(budget()).toMatchObject({ spentTokens: 300, outstanding: 0, reservedTokens: 0 });
  });

  it('books the usage of a streamed call from its finish part', async () => {
    const { guards, budget } = budgetGuards(100_000);
    const model = scriptedModel([{ text: 'streamed', usage: usage(40, 2) }]);
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: hyphaeMiddleware(guards) }),
      prompt: 'hi',
    });
    expect(await result.text).toBe('streamed');
    expect(budget()).toMatchObject({ spentTokens: 42, outstanding: 0 });
  });

  it('stops the run when booked usage breaks the ceiling', async () => {
    const { guards } = budgetGuards(3_000);
    const model = scriptedModel([
      { calls: [{ id: 'call_1', name: 'lookup', input: { id: 1 } }], usage: usage(2_500, 600) },
      { text: 'never' },
    ]);
    const lookup = lookupTool();
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: hyphaeMiddleware(guards) }),
      prompt: 'look it up',
      maxOutputTokens: 100,
      tools: guardTools({ lookup }, guards),
      stopWhen: [isStepCount(5), hyphaeStopWhen(guards)],
    });
    expect(result.steps).toHaveLength(1);
    expect(model.prompts).toHaveLength(1);
    expect(guards.stopped?.code).toBe('budget_tokens_exceeded');
    const error = result.steps[0]?.content.find((part) => part.type === 'tool-error');
    expect(String(error && 'error' in error && error.error)).toMatch(/NOT executed: this run was stopped/);
  });
});
