import { HumanMessage } from '@langchain/core/messages';
import { createAgent } from 'langchain';
import { describe, expect, it } from 'vitest';
import { createGuardPipeline, hyphaeMiddleware, stoppedVerdictOf } from '../../src/adapters/langchain.js';
import { createFuseBox, createLedger, createMemoryStorage, loopFuse } from '../../src/index.js';
import { lookupTool } from '../helpers/langchain-tools.js';
import { ScriptedChatModel, type ScriptedTurn } from '../helpers/scripted-chat-model.js';

/** `turns` lookups of distinct orders, then an answer: legitimate work, nothing repeats. */
function script(turns: number): ScriptedTurn[] {
  return [
    ...Array.from({ length: turns }, (_, i) => ({
      calls: [{ id: `call_${i}`, name: 'lookup', args: { id: `o_${i}` } }],
    })),
    { text: 'all looked up' },
  ];
}

function guards() {
  return createGuardPipeline({
    ledger: createLedger({ storage: createMemoryStorage(), agentId: 'agent', policyVersion: '1' }),
    fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3 }) }),
    tools: { lookup: { sideEffectClass: 'read' } },
  });
}

/** How a run at LangGraph's default `recursionLimit` (25) ends. */
async function outcome(turns: number, guarded: boolean): Promise<string> {
  const lookup = lookupTool();
  const agent = createAgent({
    model: new ScriptedChatModel(script(turns)),
    tools: [lookup.tool],
    middleware: guarded ? [hyphaeMiddleware(guards())] : [],
  });
  try {
    const result = await agent.invoke({ messages: [new HumanMessage('look them all up')] });
    return `completed after ${lookup.runs()} lookups: ${String(result.messages.at(-1)?.content)}`;
  } catch (error) {
    return `${(error as Error).name} after ${lookup.runs()} lookups`;
  }
}

describe('hyphaeMiddleware: recursion budget', () => {
  it('completes as many legitimate tool turns as a stock agent at the default recursionLimit', async () => {
    const stock = [await outcome(11, false), await outcome(12, false)];
    const guarded = [await outcome(11, true), await outcome(12, true)];

    expect(stock).toEqual(['completed after 11 lookups: all looked up', 'GraphRecursionError after 12 lookups']);
    expect(guarded).toEqual(stock);
  });
});

/** A provider's refusal, with its HTTP status. */
class ProviderError extends Error {
  readonly status = 400;
}

class RefusingModel extends ScriptedChatModel {
  readonly error = new ProviderError('Invalid parameter: messages');
  override async _generate(): Promise<never> {
    throw this.error;
  }
}

describe('hyphaeMiddleware: provider errors', () => {
  it('lets the provider’s error through: LangChain’s wrapper carries it as its cause, name and message', async () => {
    const model = new RefusingModel([]);
    const agent = createAgent({ model, tools: [lookupTool().tool], middleware: [hyphaeMiddleware(guards())] });

    const failure: unknown = await agent
      .invoke({ messages: [new HumanMessage('hi')] })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).cause).toBe(model.error);
    expect([(failure as Error).name, (failure as Error).message]).toEqual(['Error', 'Invalid parameter: messages']);
  });
});

describe('hyphaeMiddleware: a stopped run', () => {
  it('ends at its next model call, which is not made: the last message carries the verdict', async () => {
    const lookup = lookupTool(() => ({ status: 'shipped' }));
    const model = new ScriptedChatModel(
      Array.from({ length: 30 }, (_, i) => ({ calls: [{ id: `call_${i}`, name: 'lookup', args: { id: 'o_1' } }] })),
    );
    const pipeline = createGuardPipeline({
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 3, terminal: true }) }),
      tools: { lookup: { sideEffectClass: 'read' } },
    });
    const agent = createAgent({ model, tools: [lookup.tool], middleware: [hyphaeMiddleware(pipeline)] });

    const result = await agent.invoke({ messages: [new HumanMessage('where is o_1?')] });

    expect([lookup.runs(), model.prompts.length]).toEqual([2, 3]);
    const last = result.messages.at(-1);
    expect(stoppedVerdictOf(last)).toMatchObject({ stage: 'fuses', code: 'loop_repeat', terminal: true });
    expect(String(last?.content)).toContain('NOT');
  });
});
