/**
 * A tool call the SDK dispatches again — a run resumed from a saved `RunState` after a crash, or
 * the same call id replayed — runs the guarded tool body once. Each stock case shows the trap.
 */
import { Agent, RunState, run, tool } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createGuardPipeline, type GuardPipeline, guardAgentTool } from '../../src/adapters/openai-agents.js';
import { createFuseBox, createLedger, createMemoryStorage, loopFuse } from '../../src/index.js';
import { resultsIn, ScriptedAgentModel } from '../helpers/scripted-agent-model.js';

function paymentTool(options: { needsApproval?: boolean } = {}) {
  let runs = 0;
  const send = tool({
    name: 'send_payment',
    description: 'Send a payment',
    parameters: z.object({ amount: z.number() }),
    needsApproval: options.needsApproval ?? false,
    execute: async ({ amount }) => {
      runs++;
      return `paid ${amount}`;
    },
  });
  return { tool: send, runs: () => runs };
}

function pipeline(): GuardPipeline {
  return createGuardPipeline({
    ledger: createLedger({ storage: createMemoryStorage(), agentId: 'billing', policyVersion: '1' }),
    tools: { send_payment: { sideEffectClass: 'payment' } },
  });
}

const payCall = { calls: [{ id: 'call_pay', name: 'send_payment', args: { amount: 5 } }] };

describe('a run resumed from a saved RunState after a crash', () => {
  /**
   * The app saves the run state at the approval, approves, and the run crashes after the payment
   * ran (the next model request fails). It restores the saved state, approves again and runs.
   */
  async function crashThenResume(guards: GuardPipeline | null) {
    const pay = paymentTool({ needsApproval: true });
    const model = new ScriptedAgentModel([payCall, { fail: 'provider unavailable' }, { text: 'done' }]);
    const agent = new Agent({
      name: 'billing',
      model,
      tools: [guards === null ? pay.tool : guardAgentTool(pay.tool, guards)],
    });
    const first = await run(agent, 'pay 5', { context: { threadId: 'thread-1', runId: 'run-1' } });
    const saved = first.state.toString();
    const [approval] = first.interruptions;
    if (approval === undefined) throw new Error('expected an approval');
    first.state.approve(approval);
    await expect(run(agent, first.state)).rejects.toThrow('provider unavailable');

    const restored = await RunState.fromString(agent, saved);
    const [again] = restored.getInterruptions();
    if (again === undefined) throw new Error('expected the approval again');
    restored.approve(again);
    const resumed = await run(agent, restored);
    return { pay, model, resumed };
  }

  it('stock: the payment body runs again', async () => {
    const { pay } = await crashThenResume(null);
    expect(pay.runs()).toBe(2);
  });

  it('guarded: the payment body runs once and the resumed run gets its recorded result', async () => {
    const guards = pipeline();
    const { pay, model, resumed } = await crashThenResume(guards);
    expect(pay.runs()).toBe(1);
    expect(resumed.finalOutput).toBe('done');
    expect(resultsIn(model.requests.at(-1))).toEqual([['call_pay', 'paid 5']]);
    const { records } = (await guards.ledger?.list()) ?? { records: [] };
    expect(records).toHaveLength(1);
  });
});

describe('the same call id replayed', () => {
  async function replay(guards: GuardPipeline | null, context: unknown) {
    const pay = paymentTool();
    const tools = [guards === null ? pay.tool : guardAgentTool(pay.tool, guards)];
    for (const attempt of [1, 2]) {
      const model = new ScriptedAgentModel([payCall, { text: `done ${attempt}` }]);
      await run(new Agent({ name: 'billing', model, tools }), 'pay 5', { context });
    }
    return pay;
  }

  it('stock: runs the body for each dispatch', async () => {
    expect((await replay(null, { threadId: 't', runId: 'r' })).runs()).toBe(2);
  });

  it('guarded: one transition per scope, arguments and call id', async () => {
    expect((await replay(pipeline(), { threadId: 't', runId: 'r' })).runs()).toBe(1);
  });

  it('guarded: the replay is not counted again by the fuses (a loop threshold of 2 lets it through)', async () => {
    const guards = createGuardPipeline({
      ledger: createLedger({ storage: createMemoryStorage(), agentId: 'billing', policyVersion: '1' }),
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2 }) }),
      tools: { send_payment: { sideEffectClass: 'payment' } },
    });
    const pay = paymentTool();
    const tools = [guardAgentTool(pay.tool, guards)];
    const models = [1, 2].map(() => new ScriptedAgentModel([payCall, { text: 'done' }]));
    for (const model of models) {
      await run(new Agent({ name: 'billing', model, tools }), 'pay 5', { context: { threadId: 't', runId: 'r' } });
    }
    expect(pay.runs()).toBe(1);
    expect(resultsIn(models[1]?.requests[1])).toEqual([['call_pay', 'paid 5']]);
  });

  it('guarded, without a run id in the context: each run is its own scope', async () => {
    expect((await replay(pipeline(), {})).runs()).toBe(2);
  });
});
