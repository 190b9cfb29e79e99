/**
 * `hyphae/mastra`'s tool wrappers and settings over the real `Agent`: Mastra's own answer to input
 * it cannot validate and a tool's own errors reach the model as stock, booked as failures (a read
 * that failed twice runs a third time); the settings and tools given are not changed; bad input is
 * refused with a typed error.
 */
import { createTool } from '@mastra/core/tools';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { guardMastraTools, stoppedVerdictOf, withGuards } from '../../src/adapters/mastra.js';
import { InvalidOptionError } from '../../src/index.js';
import { agentOf, billingTools, repeating, runContext, scriptedModel } from './mastra/agent.js';
import { billingGuards } from './mastra/guards.js';

function flakyLookup(failures: number) {
  let runs = 0;
  const lookup_order = createTool({
    id: 'lookup_order',
    description: 'Look up an order',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => {
      runs++;
      if (runs <= failures) throw new Error('gateway timeout');
      return { id, status: 'shipped' };
    },
  });
  return { tools: { lookup_order }, runs: () => runs };
}

describe('hyphae/mastra: tool failures', () => {
  it('lets an identical read that failed twice run a third time, and the run completes', async () => {
    const model = scriptedModel([...repeating(3, 'lookup_order', { id: 'o_7' }), { text: 'o_7 has shipped.' }]);
    const lookup = flakyLookup(2);
    const agent = agentOf(withGuards(billingGuards(), { model, tools: lookup.tools }));

    const result = await agent.generate('Where is o_7?', { requestContext: runContext('flaky-1') });

    expect([lookup.runs(), result.text, stoppedVerdictOf(result)]).toEqual([3, 'o_7 has shipped.', undefined]);
    expect(model.prompts[1]?.at(-1)).toMatchObject({
      role: 'tool',
      content: [{ toolCallId: 'call_0', output: { type: 'error-text', value: 'gateway timeout' } }],
    });
  });

  it('hands the model Mastra’s own answer to input it cannot validate, and books it as a failure', async () => {
    const model = scriptedModel([
      ...repeating(3, 'lookup_order', { id: 7 }),
      { calls: [{ id: 'call_ok', name: 'lookup_order', input: { id: 'o_7' } }] },
      { text: 'o_7 has shipped.' },
    ]);
    const billing = billingTools();
    const agent = agentOf(withGuards(billingGuards(), { model, tools: billing.tools }));

    const result = await agent.generate('Where is o_7?', { requestContext: runContext('invalid-1') });

    expect([billing.lookups(), result.text]).toEqual([1, 'o_7 has shipped.']);
    expect(JSON.stringify(model.prompts[1]?.at(-1))).toContain('Tool input validation failed for lookup_order');
  });
});

describe('hyphae/mastra: what it is given', () => {
  it('changes neither the settings nor the tools it is given', () => {
    const billing = billingTools();
    const model = scriptedModel([]);
    const own = { id: 'own', processOutputStep: ({ messageList }: { messageList: unknown }) => messageList };
    const settings = { model, tools: billing.tools, outputProcessors: [own] };

    const guarded = withGuards(billingGuards(), settings);

    expect(settings.tools).toBe(billing.tools);
    expect(settings.outputProcessors).toEqual([own]);
    expect(guarded.tools.send_payment).not.toBe(billing.tools.send_payment);
    expect(guarded.tools.send_payment.id).toBe('send_payment');
    expect(
      (guarded as { outputProcessors?: unknown[] }).outputProcessors?.map((p) => (p as { id: string }).id),
    ).toEqual(['hyphae', 'own']);
  });

  it('keeps tools without `execute` as they are', () => {
    const described = { description: 'client-side tool' };

    const guarded = guardMastraTools({ described }, billingGuards());

    expect(guarded.described).toBe(described);
  });

  it('refuses processors that are not a list, and a scope that names no run, with typed errors', async () => {
    const pipeline = billingGuards();
    expect(() => withGuards(pipeline, { inputProcessors: 'trim' as unknown as unknown[] })).toThrow(InvalidOptionError);

    const model = scriptedModel([
      { calls: [{ id: 'c1', name: 'lookup_order', input: { id: 'o_7' } }] },
      { text: 'ok' },
    ]);
    const billing = billingTools();
    const tools = guardMastraTools(billing.tools, pipeline, { scope: () => ({ runId: '' }) });
    const result = await agentOf({ model, tools }).generate('Where is o_7?');

    expect([billing.lookups(), result.text]).toEqual([0, 'ok']);
    expect(JSON.stringify(model.prompts[1]?.at(-1))).toContain('`scope` must give a non-empty string `runId`');
  });

  it('reads only the verdict the processor wrote', () => {
    const verdict = { stage: 'fuses', code: 'loop_repeat', reason: 'r', terminal: true };

    expect(stoppedVerdictOf({ providerMetadata: { hyphae: verdict } })).toEqual(verdict);
    expect(stoppedVerdictOf({ providerMetadata: { openai: verdict } })).toBeUndefined();
    expect(stoppedVerdictOf({ providerMetadata: { hyphae: { code: 7 } } })).toBeUndefined();
    expect(stoppedVerdictOf({ tripwire: { processorId: 'hyphae', metadata: { hyphae: verdict } } })).toBeUndefined();
    expect(stoppedVerdictOf({ finishReason: 'stop' })).toBeUndefined();
  });
});
