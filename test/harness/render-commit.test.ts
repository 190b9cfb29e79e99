import { describe, expect, it } from 'vitest';
import { applyJsonPatch, createPatchHarness, type PatchHarnessOptions } from '../../src/harness/index.js';
import { defined, poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';
import { recordingRenderer, ScriptedVisionModel } from './helpers/visual.js';

const base = { request: 'Make it ocean blue', design: poster(), canEdit: true };
const blue = [{ op: 'replace', path: '/color', value: '#0055aa' }];
const winter = [{ op: 'replace', path: '/title', value: 'Winter sale' }];

function setup(model: ScriptedMainModel, options: Partial<PatchHarnessOptions> = {}) {
  const renderer = recordingRenderer();
  const visionModel = new ScriptedVisionModel();
  const harness = createPatchHarness({ designSpec: posterSpec, mainModel: model, visionModel, renderer, ...options });
  return { harness, renderer, visionModel };
}

function statuses(result: { toolOutcomes: readonly { tool: string; status: string; error?: { code: string } }[] }) {
  return result.toolOutcomes.map((o) => [o.tool, o.status, o.error?.code ?? null]);
}

describe('render_design and commit_render', () => {
  it('renders with questions, then accepts a final answer with the same patch', async () => {
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: blue, questions: ['Is the title legible on blue?'] }]),
      final('Ocean blue.', blue),
    ]);
    const { harness, renderer, visionModel } = setup(model);

    const result = await harness.run(base);

    expect(result).toMatchObject({ patch: blue, changed: true, design: { ...poster(), color: '#0055aa' } });
    expect(renderer.candidates).toEqual([{ ...poster(), color: '#0055aa' }]);
    expect(renderer.contexts[0]).toMatchObject({ renderRef: 'render:1' });
    const [request] = visionModel.requests;
    expect(request).toMatchObject({ purpose: 'render_review', questions: ['Is the title legible on blue?'] });
    expect(request?.images.map((i) => i.label)).toEqual(['render:1: the candidate design as rendered']);
    expect(new TextDecoder().decode(request?.images[0]?.artifact.bytes)).toContain('Summer sale|#0055aa');
    expect(result.toolOutcomes[0]).toMatchObject({
      tool: 'render_design',
      status: 'succeeded',
      charged: true,
      result: { visual_review: 'Looks fine', render_ref: 'render:1' },
    });
    expect(defined(model.requests[1]).messages.at(-1)?.content).toContain('"render_ref":"render:1"');
  });

  it('renders A, renders B, commits A: a null final answer returns A’s patch', async () => {
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: blue }]),
      calls(['render_design', { patch: winter }]),
      calls(['commit_render', { render_ref: 'render:2' }]),
      calls(['commit_render', { render_ref: 'render:1' }]),
      final('Going with the blue one.'),
    ]);
    const { harness } = setup(model);

    const result = await harness.run(base);

    expect(result.patch).toEqual(blue);
    expect(result.design).toEqual({ ...poster(), color: '#0055aa' });
    expect(result.changed).toBe(true);
    expect(result.toolOutcomes[3]?.result).toEqual({ committed: 'render:1', changed: true, operations: 1 });
  });

  it('renders on a base ref, composes the chain into one patch and proves it by re-applying it', async () => {
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: blue }]),
      calls(['render_design', { patch: winter, base_render_ref: 'render:1' }]),
      calls(['commit_render', { render_ref: 'render:2' }]),
      final('Blue, and a winter title.'),
    ]);
    const { harness, renderer, visionModel } = setup(model);

    const result = await harness.run(base);

    expect(result.patch).toEqual([...blue, ...winter]);
    const rendered = defined(renderer.candidates[1]);
    expect(rendered).toEqual({ ...poster(), color: '#0055aa', title: 'Winter sale' });
    expect(applyJsonPatch(poster(), defined(result.patch ?? undefined))).toEqual(rendered);
    expect(result.design).toEqual(rendered);
    expect(renderer.contexts[1]).toMatchObject({ renderRef: 'render:2', baseRenderRef: 'render:1' });
    expect(visionModel.requests[1]?.purpose).toBe('comparison');
    expect(visionModel.requests[1]?.images.map((i) => i.label)).toEqual([
      'render:1: the base render',
      'render:2: the new render (the base with the patch applied)',
    ]);
    expect(result.modelCalls.map((call) => call.purpose)).toEqual([
      'main',
      'render_review',
      'main',
      'comparison',
      'main',
      'main',
    ]);
  });

  it('refuses an unknown base ref without rendering or charging', async () => {
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: winter, base_render_ref: 'render:7' }]),
      final('ok'),
    ]);
    const { harness, renderer, visionModel } = setup(model);

    const result = await harness.run(base);

    expect(result.toolOutcomes[0]).toMatchObject({
      status: 'rejected',
      charged: false,
      error: { code: 'unknown_render_ref' },
    });
    expect(result.toolOutcomes[0]?.error?.message).toMatch(/Unknown render ref `render:7`.*known: none/);
    expect(renderer.candidates).toEqual([]);
    expect(visionModel.requests).toEqual([]);
  });

  it('refuses a composed chain over the patch limits, though each patch is within them', async () => {
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: [...blue, ...winter] }]),
      calls([
        'render_design',
        { patch: [{ op: 'replace', path: '/title', value: 'Spring sale' }], base_render_ref: 'render:1' },
      ]),
      final('ok'),
    ]);
    const { harness, renderer } = setup(model, { limits: { patch: { maxOperations: 2 } } });

    const result = await harness.run(base);

    expect(statuses(result)).toEqual([
      ['render_design', 'succeeded', null],
      ['render_design', 'rejected', 'composed_patch_limit_exceeded'],
    ]);
    expect(result.toolOutcomes[1]?.error?.message).toMatch(/composed with `render:1` \(3 operations/);
    expect(renderer.candidates).toHaveLength(1);
  });

  it('accepts an equivalent final patch after a commit (returning the committed chain) and retries a conflicting one', async () => {
    const equivalent = [
      { op: 'remove', path: '/color' },
      { op: 'add', path: '/color', value: '#0055aa' },
    ];
    const conflicting = [{ op: 'replace', path: '/color', value: '#112233' }];
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: blue }]),
      calls(['commit_render', { render_ref: 'render:1' }]),
      final('Green instead?', conflicting),
      final('Blue, as rendered.', equivalent),
    ]);
    const { harness } = setup(model);

    const result = await harness.run(base);

    expect(result.patch).toEqual(blue);
    expect(result.message).toBe('Blue, as rendered.');
    expect(result.traces.map((t) => t.validation?.code ?? t.kind)).toEqual([
      'tool_calls',
      'tool_calls',
      'conflicts_with_commit',
      'final',
    ]);
    expect(result.traces[2]?.validation?.pointer).toBe('/color');
    expect(defined(model.requests[3]).messages.at(-1)?.content).toMatch(
      /refused \(conflicts_with_commit\).*committed render `render:1`/,
    );
  });

  it('never lets an uncommitted render change the proposal', async () => {
    const model = new ScriptedMainModel([calls(['render_design', { patch: blue }]), final('Only looked.')]);
    const { harness } = setup(model);

    const result = await harness.run(base);

    expect(result).toMatchObject({ patch: null, changed: false, design: poster() });
  });

  it('with canEdit false allows a diagnostic render only, and refuses commits and changed renders', async () => {
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: [] }]),
      calls(['commit_render', { render_ref: 'render:1' }], ['render_design', { patch: blue }]),
      final('It reads well as it is.'),
    ]);
    const { harness, renderer } = setup(model);

    const result = await harness.run({ ...base, canEdit: false });

    expect(statuses(result)).toEqual([
      ['render_design', 'succeeded', null],
      ['commit_render', 'rejected', 'edit_not_allowed'],
      ['render_design', 'rejected', 'edit_not_allowed'],
    ]);
    expect(renderer.candidates).toEqual([poster()]);
    expect(result).toMatchObject({ patch: null, changed: false });
  });

  it('runs final candidate policies again on a committed render, with every outcome', async () => {
    const seenPhases: [string, string | undefined, number][] = [];
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: blue }]),
      calls(['commit_render', { render_ref: 'render:1' }]),
      final('Blue.'),
    ]);
    const { harness } = setup(model, {
      candidatePolicies: [
        {
          name: 'record',
          check: (context) => {
            seenPhases.push([context.phase, context.renderRef, context.toolOutcomes.length]);
            return { ok: true };
          },
        },
      ],
    });

    await harness.run(base);

    expect(seenPhases).toEqual([
      ['render', undefined, 0],
      ['final', 'render:1', 2],
    ]);
  });
});
