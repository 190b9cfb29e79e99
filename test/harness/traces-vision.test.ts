import { describe, expect, it } from 'vitest';
import { createPatchHarness, type StepTrace } from '../../src/harness/index.js';
import { defined, lookupColor, poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';
import { image, ScriptedVisionModel, seen } from './helpers/visual.js';

const base = { request: 'Make it ocean blue', design: poster(), canEdit: true };

describe('traces and usage', () => {
  it('traces each step and model call, with toJSON() in full and redacted() without content', async () => {
    const steps: StepTrace[] = [];
    const model = new ScriptedMainModel([calls(['lookup_color', { name: 'secret-name' }]), final('secret-answer')]);

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [lookupColor] }).run({
      ...base,
      runId: 'r1',
      onStep: (trace) => {
        steps.push(trace);
      },
    });

    expect(steps).toEqual(result.traces);
    const [first, second] = result.traces;
    expect(first).toMatchObject({ step: 1, stepId: 'r1/step-1', kind: 'tool_calls' });
    expect(second?.validation).toEqual({ status: 'accepted' });
    const full = JSON.stringify(first?.toJSON());
    expect(full).toContain('secret-name');
    expect(JSON.parse(full)).toMatchObject({
      modelCall: { callId: 'r1/step-1/model', kind: 'main', model: 'scripted-model' },
    });
    const redacted = JSON.stringify(result.traces.map((trace) => trace.redacted()));
    expect(redacted).not.toContain('secret');
    expect(redacted).not.toContain('Summer sale');
    expect(JSON.parse(redacted)[0]).toMatchObject({
      toolOutcomes: [{ callId: 'c1', tool: 'lookup_color', status: 'succeeded', charged: true }],
      modelCall: { output: { toolCalls: [{ id: 'c1', name: 'lookup_color' }] } },
    });
    expect(JSON.parse(redacted)[0].modelCall.input.messages[0]).toMatchObject({
      role: 'system',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('aggregates usage over the run, counting calls without usage', async () => {
    const model = new ScriptedMainModel([
      calls(['lookup_color', { name: 'ocean' }]),
      { text: '{"message":"ok","patch":null}' },
    ]);

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [lookupColor] }).run(
      base,
    );

    expect(result.usage).toEqual({
      inputTokens: 100,
      outputTokens: 20,
      cachedInputTokens: 40,
      cacheWriteTokens: 0,
      reasoningTokens: 5,
      totalTokens: 120,
      calls: 2,
      callsWithoutUsage: 1,
      byPurpose: {
        main: { inputTokens: 100, outputTokens: 20, totalTokens: 120, calls: 2, callsWithoutUsage: 1 },
        render_review: { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0, callsWithoutUsage: 0 },
        asset_inspection: { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0, callsWithoutUsage: 0 },
        comparison: { inputTokens: 0, outputTokens: 0, totalTokens: 0, calls: 0, callsWithoutUsage: 0 },
      },
    });
    expect(result.modelCalls.map((call) => call.usage?.inputTokens)).toEqual([100, undefined]);
  });
});

describe('inspect_visual', () => {
  it('asks the vision model about an input artifact, with the artifact labelled, as an asset inspection', async () => {
    const visionModel = new ScriptedVisionModel([seen('A sketch of a shoe')]);
    const sketch = { id: 'sketch', kind: 'reference', artifact: image('sketch', 'image/jpeg') };
    const model = new ScriptedMainModel([
      calls(
        ['inspect_visual', { artifact_id: 'sketch', questions: ['What is it?'] }],
        ['inspect_visual', { artifact_id: 'nope' }],
      ),
      final('ok'),
    ]);

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: model, visionModel }).run({
      ...base,
      inputArtifacts: [sketch],
    });

    expect(visionModel.requests).toHaveLength(1);
    expect(visionModel.requests[0]).toMatchObject({ purpose: 'asset_inspection', questions: ['What is it?'] });
    expect(visionModel.requests[0]?.images.map((i) => i.label)).toEqual(['input artifact sketch']);
    expect(result.toolOutcomes.map((o) => [o.status, o.error?.code ?? null])).toEqual([
      ['succeeded', null],
      ['rejected', 'unknown_input_artifact'],
    ]);
    expect(result.toolOutcomes[0]?.result).toEqual({ answer: 'A sketch of a shoe' });
    expect(result.modelCalls.map((call) => call.purpose)).toEqual(['main', 'asset_inspection', 'main']);
    expect(defined(model.requests[0]).messages.at(-1)?.content).toContain(
      'Input artifacts: [{"id":"sketch","kind":"reference","metadata":{}}]',
    );
  });

  it('is not offered to a run without input artifacts', async () => {
    const model = new ScriptedMainModel([final('ok')]);

    await createPatchHarness({ designSpec: posterSpec, mainModel: model, visionModel: new ScriptedVisionModel() }).run(
      base,
    );

    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual([]);
  });
});
