/**
 * `withGuards` over the real AI SDK: one call guards `ToolLoopAgent`, `generateText` and
 * `streamText`; a stopped run ends with a final text and the verdict, the agent keeps its own
 * step limit, and a dangling call in the history is repaired before the SDK's own check.
 */
import {
  generateText,
  isStepCount,
  MissingToolResultsError,
  type ModelMessage,
  streamText,
  ToolLoopAgent,
  tool,
} from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuardPipeline, withGuards } from '../../src/adapters/ai-sdk.js';
import { createFuseBox, createLedger, createMemoryStorage, loopFuse } from '../../src/index.js';
import { type Step, scriptedModel } from '../helpers/ai-sdk-model.js';

function counted() {
  let runs = 0;
  const lookup = tool({
    description: 'Look up an order',
    inputSchema: z.object({ id: z.string() }),
    execute: async ({ id }) => {
      runs++;
      return { id, status: 'shipped' };
    },
  });
  return { tools: { lookup }, runs: () => runs };
}

const repeating = (n: number): Step[] =>
  Array.from({ length: n }, (_, i) => ({ calls: [{ id: `call_${i}`, name: 'lookup', input: { id: 'o_1' } }] }));
const distinct = (n: number): Step[] =>
  Array.from({ length: n }, (_, i) => ({ calls: [{ id: `call_${i}`, name: 'lookup', input: { id: `o_${i}` } }] }));

function run(runId: string) {
  return createGuardPipeline({
    ledger: createLedger({ storage: createMemoryStorage(), agentId: 'ai', policyVersion: '1' }),
    fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3, terminal: true }) }),
    tools: { lookup: { sideEffectClass: 'read' } },
  }).forRun({ runId });
}

describe('withGuards', () => {
  it('ends a looping ToolLoopAgent after 2 executions and 3 model calls, with the verdict', async () => {
    const model = scriptedModel(repeating(30));
    const { tools, runs } = counted();
    const guards = run('agent-loop');
    const agent = new ToolLoopAgent(withGuards(guards, { model, tools }));

    const result = await agent.generate({ prompt: 'where is o_1?' });

    expect([runs(), model.prompts.length]).toEqual([2, 3]);
    expect(guards.stopped?.code).toBe('loop_repeat');
    expect(result.text).toBe(guards.stopped?.message);
    expect(result.finishReason).toBe('stop');
    expect(result.steps.at(-1)?.providerMetadata?.hyphae?.code).toBe('loop_repeat');
  });

  it('keeps ToolLoopAgent’s own limit of 20 steps when no stopWhen is given', async () => {
    const stockModel = scriptedModel(distinct(30));
    const stock = await new ToolLoopAgent({ model: stockModel, tools: counted().tools }).generate({ prompt: 'go' });
    const model = scriptedModel(distinct(30));
    const guarded = await new ToolLoopAgent(withGuards(run('agent-steps'), { model, tools: counted().tools })).generate(
      { prompt: 'go' },
    );

    expect([stock.steps.length, stockModel.prompts.length]).toEqual([20, 20]);
    expect([guarded.steps.length, model.prompts.length]).toEqual([20, 20]);
  });

  it('keeps the caller’s stopWhen', async () => {
    const model = scriptedModel(distinct(30));
    const result = await generateText({
      ...withGuards(run('caller-stop'), { model, tools: counted().tools, stopWhen: isStepCount(4) }),
      prompt: 'go',
    });

    expect(result.steps).toHaveLength(4);
  });

  it('ends a looping streamText the same way', async () => {
    const model = scriptedModel(repeating(30));
    const { tools, runs } = counted();
    const guards = run('stream-loop');
    const result = streamText({ ...withGuards(guards, { model, tools, stopWhen: isStepCount(20) }), prompt: 'go' });

    const text = await result.text;

    expect([runs(), model.prompts.length]).toEqual([2, 3]);
    expect(text).toBe(guards.stopped?.message);
  });

  it('answers a dangling tool call in the history before the SDK checks it', async () => {
    const messages: ModelMessage[] = [
      { role: 'user', content: 'earlier' },
      {
        role: 'assistant',
        content: [{ type: 'tool-call', toolCallId: 'lost', toolName: 'lookup', input: { id: 'o_1' } }],
      },
      { role: 'user', content: 'now' },
    ];
    const stockModel = scriptedModel([{ text: 'never' }]);
    await expect(generateText({ model: stockModel, tools: counted().tools, messages })).rejects.toBeInstanceOf(
      MissingToolResultsError,
    );

    const model = scriptedModel([{ text: 'fine' }]);
    const result = await generateText({ ...withGuards(run('dangling'), { model, tools: counted().tools }), messages });

    expect(result.text).toBe('fine');
    const tools = (model.prompts[0] ?? []).filter((message) => message.role === 'tool');
    expect(
      tools.flatMap((message) => message.content.map((part) => part.type === 'tool-result' && part.toolCallId)),
    ).toEqual(['lost']);
  });
});
