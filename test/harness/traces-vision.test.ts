import { describe, expect, it } from 'vitest';
import {
  type Artifact,
  createPatchHarness,
  type DesignRenderer,
  type StepTrace,
  type VisionModel,
  type VisionRequest,
} from '../../src/harness/index.js';
import { defined, lookupColor, poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';

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
    });
    expect(result.modelCalls.map((call) => call.usage?.inputTokens)).toEqual([100, undefined]);
  });
});

describe('inspect_visual', () => {
  const rendered: Artifact = { id: 'render', mediaType: 'image/png', data: new Uint8Array([1, 2, 3]) };

  function vision(answer: string) {
    const requests: VisionRequest[] = [];
    const model: VisionModel = {
      id: 'vision-model',
      complete: async (request) => {
        requests.push(request);
        return { text: answer, usage: { inputTokens: 50, outputTokens: 10 } };
      },
    };
    return { model, requests };
  }

  it('renders the design with a previewed patch and asks the vision model, counting its usage', async () => {
    const designs: unknown[] = [];
    const renderer: DesignRenderer = {
      render: async (design) => {
        designs.push(design);
        return rendered;
      },
    };
    const { model: visionModel, requests } = vision('The blue reads well');
    const preview = [{ op: 'replace', path: '/color', value: '#0055aa' }];
    const model = new ScriptedMainModel([
      calls(['inspect_visual', { question: 'Is it legible?', patch: preview }]),
      final('ok', preview),
    ]);

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: model, visionModel, renderer }).run(
      base,
    );

    expect(designs).toEqual([{ ...poster(), color: '#0055aa' }]);
    expect(requests[0]).toMatchObject({ prompt: 'Is it legible?', images: [rendered] });
    expect(result.toolOutcomes[0]).toMatchObject({
      tool: 'inspect_visual',
      status: 'succeeded',
      result: { answer: 'The blue reads well' },
    });
    expect(result.modelCalls.map((call) => call.kind)).toEqual(['main', 'vision', 'main']);
    expect(result.usage.inputTokens).toBe(250);
  });

  it('looks at an input artifact; without a renderer the artifact is required', async () => {
    const { model: visionModel, requests } = vision('A sketch of a shoe');
    const sketch: Artifact = { id: 'sketch', mediaType: 'image/jpeg', data: 'aGk=' };
    const model = new ScriptedMainModel([
      calls(
        ['inspect_visual', { question: 'What is it?', artifactId: 'sketch' }],
        ['inspect_visual', { question: 'And the design?' }],
      ),
      final('ok'),
    ]);

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: model, visionModel }).run({
      ...base,
      inputArtifacts: [sketch],
    });

    expect(requests[0]?.images).toEqual([sketch]);
    expect(result.toolOutcomes.map((o) => o.status)).toEqual(['succeeded', 'rejected']);
    expect(defined(model.requests[0]).messages.at(-1)?.content).toContain(
      'Input artifacts: [{"id":"sketch","mediaType":"image/jpeg"}]',
    );
  });
});
