import { describe, expect, it } from 'vitest';
import {
  type AgentTool,
  createPatchHarness,
  type ToolContext,
  type ToolMiddleware,
  ToolRaisedError,
} from '../../src/harness/index.js';
import { lookupColor, poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';

const base = { request: 'Make it ocean blue', design: poster(), canEdit: true };

function tool(overrides: Partial<AgentTool> & Pick<AgentTool, 'execute'>): AgentTool {
  return { name: 'probe', description: 'A probe', inputSchema: { type: 'object' }, ...overrides };
}

describe('harness.run: tools', () => {
  it('runs a tool and shows the model its canonical result with an evidence ref', async () => {
    const model = new ScriptedMainModel([
      calls(['lookup_color', { name: 'ocean' }]),
      final('Done.', [{ op: 'replace', path: '/color', value: '#0055aa' }]),
    ]);
    const harness = createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [lookupColor] });

    const result = await harness.run(base);

    expect(result.succeededToolOutcomes).toHaveLength(1);
    const [outcome] = result.toolOutcomes;
    expect(outcome).toMatchObject({
      tool: 'lookup_color',
      status: 'succeeded',
      result: { hex: '#0055aa' },
      charged: true,
      position: 0,
    });
    const shown = model.requests[1]?.messages.at(-1);
    expect(shown).toMatchObject({ role: 'tool', toolCallId: 'c1', isError: false });
    expect(shown?.content).toBe(`{"ref":"${outcome?.evidenceRef}","result":{"hex":"#0055aa"}}`);
  });

  it('charges a tool’s call budget only after validation, and rejects calls past it', async () => {
    const model = new ScriptedMainModel([
      calls(['lookup_color', { name: '' }], ['lookup_color', { colour: 'x' }]),
      calls(['lookup_color', { name: 'ocean' }], ['lookup_color', { name: 'sand' }], ['lookup_color', { name: 'sky' }]),
      final('ok'),
    ]);
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      tools: [{ ...lookupColor, maxCallsPerRun: 2 }] as AgentTool[],
    });

    const result = await harness.run(base);

    expect(result.toolOutcomes.map((o) => [o.status, o.error?.code ?? null, o.charged])).toEqual([
      ['rejected', 'invalid_input', false],
      ['rejected', 'invalid_input', false],
      ['succeeded', null, true],
      ['succeeded', null, true],
      ['rejected', 'call_budget_exhausted', false],
    ]);
  });

  it('offers only the tools the run’s capabilities allow, and rejects calls to the others', async () => {
    const publish = tool({ name: 'publish', requiredCapabilities: ['publish'], execute: () => 'published' });
    const model = new ScriptedMainModel([calls(['publish', {}]), final('ok')]);
    const harness = createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [lookupColor, publish] });

    const result = await harness.run({ ...base, capabilities: ['read'] });

    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual(['lookup_color', 'retrieve_evidence']);
    expect(result.toolOutcomes[0]).toMatchObject({ status: 'rejected', error: { code: 'unknown_tool' } });
    expect(result.toolOutcomes[0]?.error?.message).not.toContain('publish`,');
    const withCapability = new ScriptedMainModel([final('ok')]);
    await createPatchHarness({ designSpec: posterSpec, mainModel: withCapability, tools: [publish] }).run({
      ...base,
      capabilities: ['publish'],
    });
    expect(withCapability.requests[0]?.tools.map((t) => t.name)).toEqual(['publish', 'retrieve_evidence']);
  });

  it('times a slow tool out, and tells it through its timeout signal', async () => {
    let seen: ToolContext | undefined;
    const slow = tool({
      timeoutMs: 20,
      execute: (_input, context) => {
        seen = context;
        return new Promise(() => undefined);
      },
    });
    const model = new ScriptedMainModel([calls(['probe', {}]), final('ok')]);

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [slow] }).run(base);

    expect(result.toolOutcomes[0]).toMatchObject({ status: 'timed_out', error: { code: 'timeout' } });
    expect(seen?.timeoutSignal.aborted).toBe(true);
    expect(model.requests[1]?.messages.at(-1)).toMatchObject({ isError: true });
  });

  it('fails a result over its byte limit, or one that is not JSON', async () => {
    const big = tool({ name: 'big', maxResultBytes: 64, execute: () => ({ text: 'x'.repeat(100) }) });
    const odd = tool({ name: 'odd', execute: () => new Map() });
    const model = new ScriptedMainModel([calls(['big', {}], ['odd', {}]), final('ok')]);

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [big, odd] }).run(base);

    expect(result.failedToolOutcomes.map((o) => o.error?.code)).toEqual(['result_too_large', 'result_not_json']);
  });

  it('returns a tool’s error to the model by default', async () => {
    const failing = tool({ execute: () => Promise.reject(new Error('the palette service is down')) });
    const model = new ScriptedMainModel([calls(['probe', {}]), final('ok')]);

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [failing] }).run(base);

    expect(result.toolOutcomes[0]).toMatchObject({
      status: 'failed',
      error: { code: 'tool_error', message: 'the palette service is down' },
    });
  });

  it('stops the run in raise mode, keeping the tool’s error as the cause', async () => {
    const cause = new Error('the palette service is down');
    const failing = tool({ failureMode: 'raise', execute: () => Promise.reject(cause) });
    const model = new ScriptedMainModel([calls(['probe', {}]), final('ok')]);

    const error = await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [failing] })
      .run(base)
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(ToolRaisedError);
    expect(error).toMatchObject({ tool: 'probe', callId: 'c1', status: 'failed', code: 'tool_raised' });
    expect((error as Error).cause).toBe(cause);
  });

  it('raises in raise mode for a timeout or an oversized result too', async () => {
    const slow = tool({
      name: 'slow',
      failureMode: 'raise',
      timeoutMs: 10,
      execute: () => new Promise(() => undefined),
    });
    const big = tool({ name: 'big', failureMode: 'raise', maxResultBytes: 16, execute: () => 'x'.repeat(64) });
    const runOne = (name: string) =>
      createPatchHarness({
        designSpec: posterSpec,
        mainModel: new ScriptedMainModel([calls([name, {}])]),
        tools: [slow, big],
      })
        .run(base)
        .catch((caught: unknown) => caught);

    await expect(runOne('slow')).resolves.toMatchObject({ status: 'timed_out', tool: 'slow' });
    await expect(runOne('big')).resolves.toMatchObject({
      status: 'failed',
      message: expect.stringMatching(/16-byte limit/),
    });
  });

  it('lets middleware reject or defer a validated call before it is charged, and observe every outcome', async () => {
    const seen: string[] = [];
    const middleware: ToolMiddleware = {
      name: 'gate',
      before: (call) =>
        call.tool === 'probe'
          ? { action: 'defer', message: 'needs approval' }
          : call.input && (call.input as { name: string }).name === 'sky'
            ? { action: 'reject', message: 'not a brand color' }
            : undefined,
      after: (outcome) => {
        seen.push(`${outcome.tool}:${outcome.status}`);
      },
    };
    let ran = 0;
    const probe = tool({ execute: () => ran++ });
    const model = new ScriptedMainModel([
      calls(['probe', {}], ['lookup_color', { name: 'sky' }], ['lookup_color', { name: 'ocean' }]),
      final('ok'),
    ]);

    const result = await createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      tools: [probe, lookupColor],
      middleware: [middleware],
    }).run(base);

    expect(ran).toBe(0);
    expect(result.toolOutcomes.map((o) => [o.status, o.charged])).toEqual([
      ['deferred', false],
      ['rejected', false],
      ['succeeded', true],
    ]);
    expect(seen).toEqual(['probe:deferred', 'lookup_color:rejected', 'lookup_color:succeeded']);
  });

  it('gives each call its context: run, step, batch, position, artifacts and the caller’s signal itself', async () => {
    const contexts: ToolContext[] = [];
    const probe = tool({ execute: (_input, context) => contexts.push(context) });
    const controller = new AbortController();
    const artifact = {
      id: 'sketch',
      kind: 'reference',
      metadata: { page: 1 },
      artifact: { mediaType: 'image/png', bytes: new Uint8Array([1]) },
    };
    const model = new ScriptedMainModel([calls(['probe', {}], ['probe', { a: 1 }]), final('ok')]);

    await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [probe] }).run({
      ...base,
      runId: 'run-7',
      signal: controller.signal,
      inputArtifacts: [artifact],
    });

    expect(contexts.map((c) => [c.runId, c.step, c.stepId, c.batchId, c.position, c.batchSize, c.callId])).toEqual([
      ['run-7', 1, 'run-7/step-1', 'run-7/step-1/batch', 0, 2, 'c1'],
      ['run-7', 1, 'run-7/step-1', 'run-7/step-1/batch', 1, 2, 'c2'],
    ]);
    expect(contexts[0]?.signal).toBe(controller.signal);
    expect(contexts[0]?.inputArtifacts).toEqual([{ id: 'sketch', kind: 'reference', metadata: { page: 1 } }]);
    expect(Object.isFrozen(contexts[0]?.design)).toBe(true);
    expect(model.requests[0]?.signal).toBe(controller.signal);
  });

  it('runs parallel-safe calls concurrently only when enabled, keeping results in call order', async () => {
    const order: string[] = [];
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const first = tool({
      name: 'first',
      parallelSafe: true,
      execute: async () => {
        order.push('first:start');
        await gate;
        order.push('first:end');
        return 1;
      },
    });
    const second = tool({
      name: 'second',
      parallelSafe: true,
      execute: () => {
        order.push('second');
        open();
        return 2;
      },
    });
    const model = new ScriptedMainModel([calls(['first', {}], ['second', {}]), final('ok')]);

    const result = await createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      tools: [first, second],
      limits: { parallelToolCalls: true },
    }).run(base);

    expect(order).toEqual(['first:start', 'second', 'first:end']);
    expect(model.requests[1]?.messages.slice(-2).map((m) => (m.role === 'tool' ? m.toolName : m.role))).toEqual([
      'first',
      'second',
    ]);
    expect(result.toolOutcomes.map((o) => o.tool)).toEqual(['first', 'second']);
  });

  it('answers calls past the per-turn limit as rejected, so every call has its result', async () => {
    const model = new ScriptedMainModel([
      calls(['lookup_color', { name: 'a' }], ['lookup_color', { name: 'b' }], ['lookup_color', { name: 'c' }]),
      final('ok'),
    ]);

    const result = await createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      tools: [lookupColor],
      limits: { maxToolCallsPerStep: 2 },
    }).run(base);

    expect(result.toolOutcomes.map((o) => o.error?.code ?? o.status)).toEqual([
      'succeeded',
      'succeeded',
      'too_many_calls',
    ]);
    expect(model.requests[1]?.messages.filter((m) => m.role === 'tool')).toHaveLength(3);
  });

  it('runs calls in order when one of them is not parallel-safe', async () => {
    let open = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const waits = tool({ name: 'waits', parallelSafe: true, timeoutMs: 30, execute: () => gate.then(() => 'opened') });
    const opens = tool({ name: 'opens', execute: () => open() });
    const model = new ScriptedMainModel([calls(['waits', {}], ['opens', {}]), final('ok')]);
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      tools: [waits, opens],
      limits: { parallelToolCalls: true },
    });

    const result = await harness.run(base);

    expect(result.toolOutcomes.map((o) => o.status)).toEqual(['timed_out', 'succeeded']);
  });
});
