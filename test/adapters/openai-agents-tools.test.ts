import { Agent, run, ToolCallError, ToolInputGuardrailTripwireTriggered, tool, webSearchTool } from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createGuardPipeline,
  guardAgentTool,
  guardAgentTools,
  hyphaeToolInputGuardrail,
} from '../../src/adapters/openai-agents.js';
import { createFuseBox, createLedger, createMemoryStorage, loopFuse, permissionFuse } from '../../src/index.js';
import { resultsIn, ScriptedAgentModel } from '../helpers/scripted-agent-model.js';

function countedTool(name: string, output: (args: { id: string }) => string = (args) => `looked up ${args.id}`) {
  let runs = 0;
  const fn = tool({
    name,
    description: `The ${name} tool`,
    parameters: z.object({ id: z.string() }),
    execute: async (args) => {
      runs++;
      return output(args);
    },
  });
  return { tool: fn, runs: () => runs };
}

const ledger = () => createLedger({ storage: createMemoryStorage(), agentId: 'agent', policyVersion: '1' });
const context = { threadId: 'thread-1', runId: 'run-1' };

describe('guardAgentTool', () => {
  it('runs the call through the ledger, keyed by the run scope and the call id', async () => {
    const lookup = countedTool('lookup');
    const pipeline = createGuardPipeline({ ledger: ledger(), tools: { lookup: { sideEffectClass: 'read' } } });
    const model = new ScriptedAgentModel([
      { calls: [{ id: 'call_1', name: 'lookup', args: { id: 'o_1' } }] },
      { text: 'done' },
    ]);
    const agent = new Agent({ name: 'support', model, tools: [guardAgentTool(lookup.tool, pipeline)] });

    const result = await run(agent, 'where is o_1?', { context });

    expect(result.finalOutput).toBe('done');
    expect(lookup.runs()).toBe(1);
    expect(resultsIn(model.requests[1])).toEqual([['call_1', 'looked up o_1']]);
    const { records } = (await pipeline.ledger?.list()) ?? { records: [] };
    expect(records).toMatchObject([
      { tool: 'lookup', ticket: 'call_1', outcome: 'COMPLETED', scope: { threadId: 'thread-1', runId: 'run-1' } },
    ]);
  });

  it('answers a denied call for the same call id, saying it did NOT happen; the run goes on', async () => {
    const refund = countedTool('refund');
    const pipeline = createGuardPipeline({
      fuses: createFuseBox({ permission: permissionFuse({ granted: ['read'], tools: { refund: ['spend_money'] } }) }),
    });
    const model = new ScriptedAgentModel([
      { calls: [{ id: 'call_r', name: 'refund', args: { id: 'o_1' } }] },
      { text: 'I could not refund' },
    ]);
    const agent = new Agent({ name: 'support', model, tools: [guardAgentTool(refund.tool, pipeline)] });

    const result = await run(agent, 'refund o_1');

    expect(refund.runs()).toBe(0);
    const [[callId, output] = ['', '']] = resultsIn(model.requests[1]);
    expect(callId).toBe('call_r');
    expect(output).toContain('NOT');
    expect(result.finalOutput).toBe('I could not refund');
  });

  it('never runs a call whose arguments do not parse (the SDK answers it before invoke)', async () => {
    const lookup = countedTool('lookup');
    const model = new ScriptedAgentModel([
      { calls: [{ id: 'call_bad', name: 'lookup', raw: '{"id": ' }] },
      { text: 'retrying later' },
    ]);
    const pipelineLedger = ledger();
    const agent = new Agent({
      name: 'support',
      model,
      tools: [guardAgentTool(lookup.tool, { ledger: pipelineLedger })],
    });

    await run(agent, 'look');

    expect(lookup.runs()).toBe(0);
    expect(resultsIn(model.requests[1]).map(([id]) => id)).toEqual(['call_bad']);
    expect(await pipelineLedger.list()).toMatchObject({ records: [] });
  });

  it('halts the run when a call comes in after a terminal refusal stopped it', async () => {
    const lookup = countedTool('lookup');
    const pipeline = createGuardPipeline({
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2, terminal: true }) }),
    });
    const same = { name: 'lookup', args: { id: 'o_1' } };
    const model = new ScriptedAgentModel([
      { calls: [{ ...same, id: 'c1' }] },
      { calls: [{ ...same, id: 'c2' }] },
      { calls: [{ ...same, id: 'c3' }] },
      { text: 'never' },
    ]);
    const agent = new Agent({ name: 'looper', model, tools: [guardAgentTool(lookup.tool, pipeline)] });

    const failure: unknown = await run(agent, 'loop').then(
      () => null,
      (error: unknown) => error,
    );
    // The SDK wraps the tripwire in a `ToolCallError` (`error` holds it).
    expect(failure).toBeInstanceOf(ToolCallError);
    expect((failure as ToolCallError).error).toBeInstanceOf(ToolInputGuardrailTripwireTriggered);
    expect(lookup.runs()).toBe(1);
    expect(resultsIn(model.requests[2])[1]?.[1]).toContain('NOT');
  });

  it('only answers such calls with a refusal when halting is turned off', async () => {
    const lookup = countedTool('lookup');
    const pipeline = createGuardPipeline({
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2, terminal: true }) }),
    });
    const same = { name: 'lookup', args: { id: 'o_1' } };
    const model = new ScriptedAgentModel([
      { calls: [{ ...same, id: 'c1' }] },
      { calls: [{ ...same, id: 'c2' }] },
      { calls: [{ ...same, id: 'c3' }] },
      { text: 'gave up' },
    ]);
    const guarded = guardAgentTool(lookup.tool, pipeline, { haltOnStop: false });
    const agent = new Agent({ name: 'looper', model, tools: [guarded] });

    const result = await run(agent, 'loop');

    expect(result.finalOutput).toBe('gave up');
    expect(lookup.runs()).toBe(1);
    expect(resultsIn(model.requests[3]).map(([id, output]) => [id, output.includes('NOT')])).toEqual([
      ['c1', false],
      ['c2', true],
      ['c3', true],
    ]);
  });
});

describe('hyphaeToolInputGuardrail', () => {
  it('fits a tool built with `tool()` and, set to reject, answers calls of a stopped run', async () => {
    let runs = 0;
    const pipeline = createGuardPipeline({
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2, terminal: true }) }),
    });
    const lookup = tool({
      name: 'lookup',
      description: 'Look up',
      parameters: z.object({ id: z.string() }),
      execute: async () => `run ${++runs}`,
      inputGuardrails: [hyphaeToolInputGuardrail(pipeline, { onStopped: 'reject' })],
    });
    const same = { name: 'lookup', args: { id: 'o_1' } };
    const model = new ScriptedAgentModel([
      { calls: [{ ...same, id: 'c1' }] },
      { calls: [{ ...same, id: 'c2' }] },
      { calls: [{ ...same, id: 'c3' }] },
      { text: 'stopped' },
    ]);
    const agent = new Agent({
      name: 'looper',
      model,
      tools: [guardAgentTool(lookup, pipeline, { haltOnStop: false })],
    });

    await run(agent, 'loop');

    expect(runs).toBe(1);
    const [, second, third] = resultsIn(model.requests[3]);
    expect(second?.[1]).toContain('NOT');
    expect(third?.[1]).toContain('stopped by an earlier refusal');
  });
});

describe('guardAgentTools', () => {
  it('wraps function tools, passes hosted tools through and leaves the originals as they were', () => {
    const lookup = countedTool('lookup');
    const search = webSearchTool();
    const [guarded, hosted] = guardAgentTools([lookup.tool, search], { ledger: ledger() });

    expect(hosted).toBe(search);
    expect(guarded).not.toBe(lookup.tool);
    expect(guarded).toMatchObject({ type: 'function', name: 'lookup', parameters: lookup.tool.parameters });
    expect(guarded?.type === 'function' && guarded.invoke).not.toBe(lookup.tool.invoke);
    expect(lookup.tool.inputGuardrails ?? []).toHaveLength(0);
  });
});
