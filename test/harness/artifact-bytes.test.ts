import { describe, expect, it } from 'vitest';
import { createPatchHarness, type HarnessEvent } from '../../src/harness/index.js';
import { poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';
import { bytesIn, expectNoBytes, image, recordingRenderer, ScriptedVisionModel } from './helpers/visual.js';

const base = { request: 'Make it ocean blue', design: poster(), canEdit: true };
const blue = [{ op: 'replace', path: '/color', value: '#0055aa' }];

/** Everything a run hands back or emits, as plain data. */
function everything(result: Awaited<ReturnType<ReturnType<typeof createPatchHarness>['run']>>, events: HarnessEvent[]) {
  return {
    events,
    traces: result.traces.map((trace) => trace.toJSON()),
    redactedTraces: result.traces.map((trace) => trace.redacted()),
    modelCalls: result.modelCalls.map((call) => call.toJSON()),
    redactedCalls: result.modelCalls.map((call) => call.redacted()),
    outcomes: result.toolOutcomes,
  };
}

describe('artifact bytes', () => {
  it('never enter events, traces or tool outcomes of a render, comparison and commit', async () => {
    const events: HarnessEvent[] = [];
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: blue }]),
      calls([
        'render_design',
        { patch: [{ op: 'replace', path: '/title', value: 'Winter' }], base_render_ref: 'render:1' },
      ]),
      calls(['commit_render', { render_ref: 'render:2' }]),
      final('Done.'),
    ]);
    const vision = new ScriptedVisionModel();
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      visionModel: vision,
      renderer: recordingRenderer(),
    });

    const result = await harness.run({ ...base, onEvent: (event) => events.push(event) });

    expect(vision.requests.flatMap((r) => r.images)).toHaveLength(3);
    expect(bytesIn(vision.requests)).not.toEqual([]); // the bytes did reach the vision model, and the check sees them
    expectNoBytes(everything(result, events));
    expectNoBytes(model.requests.map((request) => request.messages));
    expect(JSON.stringify(result.modelCalls.map((call) => call.redacted()))).not.toContain('the base render');
    const visionCall = result.modelCalls.find((call) => call.purpose === 'comparison');
    expect(visionCall?.input).toMatchObject({
      images: [
        { label: 'render:1: the base render', mediaType: 'image/png', sha256: expect.stringMatching(/^[0-9a-f]{64}$/) },
        { label: expect.stringMatching(/^render:2/), byteLength: expect.any(Number) },
      ],
    });
    expect(
      events.filter((e) => e.type === 'model_call_started').map((e) => e.type === 'model_call_started' && e.purpose),
    ).toEqual(['main', 'render_review', 'main', 'comparison', 'main', 'main']);
  });

  it('never enter events, traces, outcomes or approved assets of asset inspections and input artifacts', async () => {
    const events: HarnessEvent[] = [];
    const model = new ScriptedMainModel([
      calls(['search_assets_stock', { query: 'wave' }]),
      calls(['inspect_asset', { asset_ref: 'asset:1' }], ['inspect_asset', { asset_ref: 'asset:2' }]),
      calls(['inspect_visual', { artifact_id: 'sketch' }]),
      final('Done.'),
    ]);
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      visionModel: new ScriptedVisionModel(),
      assetProviders: [
        {
          name: 'stock',
          search: () => [
            { id: 'eager', preview: image('eager') },
            { id: 'lazy', previewLoader: () => image('lazy') },
          ],
        },
      ],
    });

    const result = await harness.run({
      ...base,
      inputArtifacts: [{ id: 'sketch', kind: 'sketch', load: () => image('sketch') }],
      onEvent: (event) => events.push(event),
    });

    expect(result.toolOutcomes.map((o) => o.status)).toEqual(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expectNoBytes({ ...everything(result, events), approvedAssets: result.approvedAssets });
    expectNoBytes(model.requests.map((request) => request.messages));
  });
});
