import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import {
  type AgentTool,
  createAiSdkMainModel,
  createPatchHarness,
  HarnessInputError,
  type StepTrace,
  ToolRaisedError,
} from '../../src/harness/index.js';
import { poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';

const base = { request: 'Make it ocean blue', design: poster(), canEdit: true };
const failing = (overrides: Partial<AgentTool> = {}): AgentTool => ({
  name: 'probe',
  description: 'A probe that fails',
  inputSchema: { type: 'object' },
  execute: () => Promise.reject(new Error('the palette service is down')),
  ...overrides,
});

describe('run records: what the provider said', () => {
  it('keeps reasoning, response id, an explicit cache hit and provider metadata in traces and the result', async () => {
    const model = new ScriptedMainModel([
      { ...calls(['probe', {}]), reasoning: 'I should look first', responseId: 'resp_1', cacheHit: false },
      {
        ...final('Done.'),
        reasoning: 'Nothing to change',
        responseId: 'resp_2',
        cacheHit: true,
        providerMetadata: { openai: { serviceTier: 'default', cachedPromptTokens: 40 } },
      },
    ]);
    const harness = createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [failing()] });

    const result = await harness.run(base);

    const [first, second] = result.modelCalls;
    expect(first).toMatchObject({
      responseId: 'resp_1',
      cacheHit: false,
      output: { reasoning: 'I should look first' },
    });
    expect(second).toMatchObject({ responseId: 'resp_2', cacheHit: true, output: { reasoning: 'Nothing to change' } });
    expect(result.providerMetadata).toEqual({ openai: { serviceTier: 'default', cachedPromptTokens: 40 } });
    // Redacted traces keep ids and flags, a digest of the reasoning, and only the metadata's keys.
    const redacted = result.traces[1]?.redacted() as { modelCall: Record<string, unknown> };
    expect(redacted.modelCall).toMatchObject({
      responseId: 'resp_2',
      cacheHit: true,
      providerMetadataKeys: ['openai'],
    });
    expect(JSON.stringify(redacted)).not.toContain('Nothing to change');
    expect(JSON.stringify(redacted)).not.toContain('serviceTier');
  });

  it('never claims a cache hit the provider did not report', async () => {
    const result = await createPatchHarness({
      designSpec: posterSpec,
      mainModel: new ScriptedMainModel([final('Done.')]),
    }).run(base);

    expect(result.modelCalls[0]?.cacheHit).toBeNull();
    expect(result.providerMetadata).toBeNull();
  });

  it('maps the AI SDK’s reasoning, response id and provider metadata', async () => {
    const mock = new MockLanguageModelV4({
      modelId: 'mock-4',
      doGenerate: [
        {
          content: [
            { type: 'reasoning', text: 'Thinking it over' },
            { type: 'text', text: JSON.stringify({ message: 'Done.', patch: null }) },
          ],
          finishReason: { unified: 'stop', raw: 'stop' },
          usage: {
            inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
            outputTokens: { total: 5, text: 5, reasoning: undefined },
          },
          warnings: [],
          response: { id: 'resp_ai', modelId: 'mock-4', timestamp: new Date(0) },
          providerMetadata: { mock: { requestId: 'req_9' } },
        },
      ],
    });

    const result = await createPatchHarness({
      designSpec: posterSpec,
      mainModel: createAiSdkMainModel({ model: mock }),
    }).run(base);

    expect(result.modelCalls[0]).toMatchObject({ responseId: 'resp_ai', output: { reasoning: 'Thinking it over' } });
    expect(result.modelCalls[0]?.cacheHit).toBeNull();
    expect(result.providerMetadata).toEqual({ mock: { requestId: 'req_9' } });
  });
});

describe('run records: the application’s trace redactor', () => {
  it('decides what redacted() returns, given the whole trace and the default redaction', async () => {
    const seen: { stepId: string; hasDefault: boolean }[] = [];
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: new ScriptedMainModel([final('Done.')]),
      traceRedactor: (trace, byDefault) => {
        seen.push({ stepId: trace.stepId, hasDefault: 'modelCall' in byDefault });
        return { step: trace.step, kind: trace.kind };
      },
    });
    const steps: StepTrace[] = [];

    const result = await harness.run({ ...base, onStep: (step) => void steps.push(step) });

    expect(steps[0]?.redacted()).toEqual({ step: 1, kind: 'final' });
    expect(result.traces[0]?.redacted()).toEqual({ step: 1, kind: 'final' });
    expect(seen[0]).toEqual({ stepId: `${result.runId}/step-1`, hasDefault: true });
    // toJSON() stays complete.
    expect(result.traces[0]?.toJSON().modelCall.output?.text).toContain('Done.');
  });

  it('is refused when it is not a function', () => {
    expect(() =>
      createPatchHarness({
        designSpec: posterSpec,
        mainModel: new ScriptedMainModel([]),
        traceRedactor: 'none' as never,
      }),
    ).toThrow(/traceRedactor/);
  });
});

describe('run records: outcome lists', () => {
  it('gives candidate policies the succeeded subset beside every outcome', async () => {
    const seen: { all: number; succeeded: string[] }[] = [];
    const ok: AgentTool = {
      name: 'ok_tool',
      description: 'Works',
      inputSchema: { type: 'object' },
      execute: () => 'fine',
    };
    await createPatchHarness({
      designSpec: posterSpec,
      mainModel: new ScriptedMainModel([calls(['probe', {}], ['ok_tool', {}]), final('ok')]),
      tools: [failing(), ok],
      candidatePolicies: [
        {
          name: 'observer',
          check: (context) => {
            seen.push({
              all: context.toolOutcomes.length,
              succeeded: context.succeededToolOutcomes.map((o) => o.tool),
            });
            return { ok: true };
          },
        },
      ],
    }).run(base);

    expect(seen).toEqual([{ all: 2, succeeded: ['ok_tool'] }]);
  });
});

describe('run records: failure modes per run', () => {
  const run = (tool: AgentTool, options: object) =>
    createPatchHarness({
      designSpec: posterSpec,
      mainModel: new ScriptedMainModel([calls(['probe', {}]), final('ok')]),
      tools: [tool],
    })
      .run({ ...base, ...options })
      .catch((error: unknown) => error);

  it('raises for every tool of a run with failureMode: raise', async () => {
    expect(await run(failing(), { failureMode: 'raise' })).toBeInstanceOf(ToolRaisedError);
  });

  it('lets a per-tool override of the run win over the run’s mode and the tool’s own', async () => {
    const returned = await run(failing({ failureMode: 'raise' }), {
      failureMode: 'raise',
      toolFailureModes: { probe: 'return_error' },
    });
    expect(returned).toMatchObject({ message: 'ok', failedToolOutcomes: [{ tool: 'probe', status: 'failed' }] });
    expect(await run(failing(), { toolFailureModes: { probe: 'raise' } })).toBeInstanceOf(ToolRaisedError);
  });

  it('keeps the tool’s own mode when the run says nothing', async () => {
    expect(await run(failing({ failureMode: 'raise' }), {})).toBeInstanceOf(ToolRaisedError);
    expect(await run(failing(), {})).toMatchObject({ message: 'ok' });
  });

  it('refuses an unknown mode or a tool the harness does not have', async () => {
    expect(await run(failing(), { failureMode: 'explode' })).toBeInstanceOf(HarnessInputError);
    const unknown = await run(failing(), { toolFailureModes: { prob: 'raise' } });
    expect(unknown).toBeInstanceOf(HarnessInputError);
    expect((unknown as Error).message).toContain('toolFailureModes.prob');
  });
});
