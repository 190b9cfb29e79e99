import { describe, expect, it } from 'vitest';
import {
  type AgentTool,
  createPatchHarness,
  createRenderer,
  HarnessConfigError,
  ModelAuthError,
  type PatchHarnessOptions,
  type RenderedArtifact,
  RunLimitExceededError,
  type ToolMiddleware,
} from '../../src/harness/index.js';
import { poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';
import { image, recordingRenderer, ScriptedVisionModel, seen } from './helpers/visual.js';

const base = { request: 'Make it ocean blue', design: poster(), canEdit: true };
const blue = [{ op: 'replace', path: '/color', value: '#0055aa' }];

function setup(
  model: ScriptedMainModel,
  options: Partial<PatchHarnessOptions> = {},
  vision = new ScriptedVisionModel(),
) {
  const renderer = recordingRenderer();
  const harness = createPatchHarness({
    designSpec: posterSpec,
    mainModel: model,
    visionModel: vision,
    renderer,
    ...options,
  });
  return { harness, renderer, vision };
}

function codes(result: { toolOutcomes: readonly { status: string; error?: { code: string }; charged: boolean }[] }) {
  return result.toolOutcomes.map((o) => [o.status, o.error?.code ?? null, o.charged]);
}

const findingsSchema = {
  type: 'object',
  properties: {
    verdict: { enum: ['good', 'needs_work'] },
    findings: {
      type: 'array',
      items: {
        type: 'object',
        properties: { severity: { enum: ['low', 'high'] }, message: { type: 'string' } },
        required: ['severity', 'message'],
      },
    },
  },
  required: ['verdict', 'findings'],
  additionalProperties: false,
};

describe('render_design: checks before rendering', () => {
  it('refuses blank questions before middleware, rendering or charging', async () => {
    const before: string[] = [];
    const spy: ToolMiddleware = { name: 'spy', before: (call) => void before.push(call.tool) };
    const model = new ScriptedMainModel([
      calls(
        ['render_design', { patch: blue, questions: ['Legible?', '   '] }],
        ['render_design', { patch: blue, questions: [] }],
      ),
      final('ok'),
    ]);
    const { harness, renderer, vision } = setup(model, { middleware: [spy] });

    const result = await harness.run(base);

    expect(codes(result)).toEqual([
      ['rejected', 'invalid_input', false],
      ['rejected', 'invalid_input', false],
    ]);
    expect(result.toolOutcomes[0]?.error?.message).toMatch(/\/questions\/1: a question must not be blank/);
    expect(before).toEqual([]);
    expect(renderer.candidates).toEqual([]);
    expect(vision.requests).toEqual([]);
  });

  it('charges the render budget only after the candidate passed validation', async () => {
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: [{ op: 'replace', path: '/title', value: '' }] }]),
      calls(['render_design', { patch: [{ op: 'add', path: '/tags/0', value: 'zzz' }] }]),
      calls(['render_design', { patch: blue }]),
      calls(['render_design', { patch: [{ op: 'replace', path: '/color', value: '#00ff00' }] }]),
      final('ok'),
    ]);
    const { harness, renderer } = setup(model, { limits: { maxRenders: 1 } });

    const result = await harness.run(base);

    expect(codes(result)).toEqual([
      ['rejected', 'design_invalid', false],
      ['rejected', 'design_round_trip', false],
      ['succeeded', null, true],
      ['rejected', 'render_budget_exhausted', false],
    ]);
    expect(renderer.candidates).toHaveLength(1);
  });

  it('runs candidate policies in the render phase on the composed patch, and renders nothing they refuse', async () => {
    const phases: unknown[] = [];
    const noGreen = {
      name: 'no-green',
      check: ({ phase, patch, candidate }: { phase: string; patch: unknown; candidate: unknown }) => {
        phases.push({ phase, patch });
        return (candidate as { color: string }).color === '#00ff00'
          ? { ok: false as const, message: 'No green', pointer: '/color' }
          : { ok: true as const };
      },
    };
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: [{ op: 'replace', path: '/color', value: '#00ff00' }] }]),
      final('ok'),
    ]);
    const { harness, renderer } = setup(model, { candidatePolicies: [noGreen] });

    const result = await harness.run(base);

    expect(codes(result)).toEqual([['rejected', 'policy_no-green', false]]);
    expect(phases[0]).toEqual({ phase: 'render', patch: [{ op: 'replace', path: '/color', value: '#00ff00' }] });
    expect(renderer.candidates).toEqual([]);
  });

  it('guards against renders in a row that change nothing from their base', async () => {
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: [] }]),
      calls(['render_design', { patch: [], base_render_ref: 'render:1' }]),
      calls(['render_design', { patch: blue }]),
      calls(['render_design', { patch: [], base_render_ref: 'render:2' }]),
      final('ok'),
    ]);
    const { harness } = setup(model, { limits: { maxUnchangedRenders: 1 } });

    const result = await harness.run(base);

    expect(codes(result)).toEqual([
      ['succeeded', null, true],
      ['rejected', 'unchanged_render_limit', false],
      ['succeeded', null, true],
      ['succeeded', null, true],
    ]);
  });
});

describe('render_design: rendering and review', () => {
  it('retries a failed vision call without rendering again, and counts the retry', async () => {
    const model = new ScriptedMainModel([calls(['render_design', { patch: blue }]), final('ok', blue)]);
    const vision = new ScriptedVisionModel([new Error('vision overloaded'), seen('Reads well')]);
    const { harness, renderer } = setup(model, {}, vision);

    const result = await harness.run(base);

    expect(result.toolOutcomes[0]?.result).toEqual({ visual_review: 'Reads well', render_ref: 'render:1' });
    expect(renderer.candidates).toHaveLength(1);
    const visionCalls = result.modelCalls.filter((call) => call.kind === 'vision');
    expect(visionCalls.map((call) => [call.attempt, call.status, call.error?.message ?? null])).toEqual([
      [1, 'error', 'vision overloaded'],
      [2, 'ok', null],
    ]);
    expect(result.usage.byPurpose.render_review).toMatchObject({ calls: 2, callsWithoutUsage: 1, inputTokens: 50 });
  });

  it('fails the call when every vision attempt failed (the render stays charged), and never retries an auth failure', async () => {
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: blue }]),
      calls(['render_design', { patch: blue }]),
      final('ok'),
    ]);
    const vision = new ScriptedVisionModel([
      new Error('down'),
      new Error('still down'),
      new ModelAuthError({ message: 'bad key' }),
    ]);
    const { harness, renderer } = setup(model, {}, vision);

    const result = await harness.run(base);

    expect(codes(result)).toEqual([
      ['failed', 'vision_failed', true],
      ['failed', 'vision_failed', true],
    ]);
    expect(result.toolOutcomes[0]?.error?.message).toMatch(/after 2 attempts \(last: still down\)/);
    expect(result.toolOutcomes[1]?.error?.message).toMatch(/after 1 attempt \(last: bad key\)/);
    expect(renderer.contexts.map((c) => c.renderRef)).toEqual(['render:1', 'render:2']);
  });

  it('keeps a structured review as an object, checked against the application’s schema (a bad one is retried)', async () => {
    const review = { verdict: 'needs_work', findings: [{ severity: 'high', message: 'Title clipped' }] };
    const model = new ScriptedMainModel([calls(['render_design', { patch: blue }]), final('ok')]);
    const vision = new ScriptedVisionModel([
      seen('{"verdict":"meh"}'),
      seen(`\`\`\`json\n${JSON.stringify(review)}\n\`\`\``),
    ]);
    const { harness } = setup(
      model,
      { visualReview: { outputSchema: findingsSchema, instructions: 'Titles must never be clipped.' } },
      vision,
    );

    const result = await harness.run(base);

    expect(result.toolOutcomes[0]?.result).toEqual({ visual_review: review, render_ref: 'render:1' });
    expect(vision.requests[0]?.outputSchema).toEqual(findingsSchema);
    expect(vision.requests[0]?.prompt).toContain('Titles must never be clipped.');
    expect(result.modelCalls.filter((c) => c.kind === 'vision').map((c) => c.error?.code ?? 'ok')).toEqual([
      'model_invalid_response',
      'ok',
    ]);
  });

  it('lets a custom tool read a rendered artifact through its context (a copy each time)', async () => {
    const reads: RenderedArtifact[] = [];
    const measure: AgentTool<{ ref: string }> = {
      name: 'measure_render',
      description: 'Size of a render',
      inputSchema: { type: 'object', properties: { ref: { type: 'string' } }, required: ['ref'] },
      execute: ({ ref }, context) => {
        const artifact = context.renderedArtifacts[ref];
        if (artifact === undefined) throw new Error(`no ${ref}`);
        reads.push({ ...artifact, bytes: artifact.bytes.slice() });
        artifact.bytes.fill(0); // the run's own copy is not affected
        return { bytes: artifact.bytes.byteLength, mediaType: artifact.mediaType, metadata: artifact.metadata ?? null };
      },
    };
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: blue }]),
      calls(
        ['measure_render', { ref: 'render:1' }],
        ['measure_render', { ref: 'render:1' }],
        ['measure_render', { ref: 'render:2' }],
      ),
      final('ok'),
    ]);
    const { harness } = setup(model, { tools: [measure as AgentTool] });

    const result = await harness.run(base);

    const expected = image('Summer sale|#0055aa');
    expect(result.toolOutcomes[1]?.result).toEqual({
      bytes: expected.bytes.byteLength,
      mediaType: 'image/png',
      metadata: { tag: 'Summer sale|#0055aa' },
    });
    expect(result.toolOutcomes[3]).toMatchObject({ status: 'failed', error: { message: 'no render:2' } });
    expect(reads).toHaveLength(2);
    expect(reads[1]?.bytes).toEqual(expected.bytes);
  });

  it('checks the artifact: empty, too large, not an image, metadata that is not JSON', async () => {
    const artifacts: unknown[] = [
      { bytes: new Uint8Array(), mediaType: 'image/png' },
      { bytes: new Uint8Array(64), mediaType: 'image/png' },
      { bytes: new Uint8Array([1]), mediaType: 'application/pdf' },
      { bytes: new Uint8Array([1]), mediaType: 'image/png', metadata: { at: () => 1 } },
      { bytes: new Uint8Array([1]), mediaType: 'image/png', metadata: { ok: true } },
    ];
    const renderer = createRenderer(() => artifacts.shift() as RenderedArtifact);
    const model = new ScriptedMainModel([
      calls(...Array.from({ length: 5 }, () => ['render_design', { patch: blue }] as const)),
      final('ok'),
    ]);
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      visionModel: new ScriptedVisionModel(),
      renderer,
      limits: { maxRenderBytes: 32 },
    });

    const result = await harness.run(base);

    expect(codes(result).map(([status, code]) => `${status}:${code}`)).toEqual([
      'failed:render_invalid',
      'failed:render_invalid',
      'failed:render_invalid',
      'failed:render_invalid',
      'succeeded:null',
    ]);
    expect(result.toolOutcomes.map((o) => o.error?.message ?? '')).toEqual([
      expect.stringMatching(/empty/),
      expect.stringMatching(/64 bytes, over the 32-byte limit/),
      expect.stringMatching(/`application\/pdf` is not an image type/),
      expect.stringMatching(/`metadata` is not JSON/),
      '',
    ]);
  });

  it('times a render out, and a vision call out (then retries it)', async () => {
    const stuck = createRenderer(
      (_candidate, { timeoutSignal }) =>
        new Promise<RenderedArtifact>((_resolve, reject) => {
          timeoutSignal.addEventListener('abort', () => reject(new Error('gave up')));
        }),
    );
    const model = new ScriptedMainModel([calls(['render_design', { patch: blue }]), final('ok')]);
    const result = await createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      visionModel: new ScriptedVisionModel(),
      renderer: stuck,
      limits: { renderTimeoutMs: 20 },
    }).run(base);
    expect(codes(result)).toEqual([['timed_out', 'render_timeout', true]]);

    const slowOnce = new ScriptedVisionModel([() => new Promise(() => undefined) as never, seen('fine')]);
    const second = new ScriptedMainModel([calls(['render_design', { patch: blue }]), final('ok')]);
    const { harness } = setup(second, { limits: { visionTimeoutMs: 20 } }, slowOnce);
    const reviewed = await harness.run(base);
    expect(reviewed.toolOutcomes[0]?.result).toMatchObject({ visual_review: 'fine' });
    expect(reviewed.modelCalls.filter((c) => c.kind === 'vision').map((c) => c.status)).toEqual(['error', 'ok']);
  });
});

describe('render budgets', () => {
  it('books vision usage against the provider-token budget and stops the run past it', async () => {
    const model = new ScriptedMainModel([calls(['render_design', { patch: blue }]), final('ok')]);
    const greedy = new ScriptedVisionModel([{ text: 'fine', usage: { inputTokens: 100_000, outputTokens: 0 } }]);
    const { harness } = setup(model, { limits: { maxProviderTokens: 50_000, maxOutputTokens: 1_000 } }, greedy);

    const error = await harness.run(base).catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RunLimitExceededError);
    expect(error).toMatchObject({ limit: 'maxProviderTokens', value: 50_000 });
    expect(model.requests).toHaveLength(1);
  });
});

describe('render configuration', () => {
  it('offers render_design and commit_render only with a renderer and a vision model', async () => {
    const model = new ScriptedMainModel([final('ok')]);
    await setup(model).harness.run(base);

    expect(model.requests[0]?.tools.map((tool) => tool.name)).toEqual([
      'commit_render',
      'render_design',
      'retrieve_evidence',
    ]);
    expect(() =>
      createPatchHarness({ designSpec: posterSpec, mainModel: model, renderer: recordingRenderer() }),
    ).toThrow(HarnessConfigError);
    expect(() =>
      createPatchHarness({
        designSpec: posterSpec,
        mainModel: model,
        visionModel: new ScriptedVisionModel(),
        visualReview: { outputSchema: { type: 'object', properties: { a: { type: 'nope' } } } },
      }),
    ).toThrow(/visualReview\.outputSchema/);
  });

  it('never lets the design schema’s $defs leak into the render or commit tool schemas', async () => {
    const designSpec = {
      schema: {
        $defs: { hex: { type: 'string', pattern: '^#[0-9a-f]{6}$' } },
        type: 'object',
        properties: { title: { type: 'string' }, color: { $ref: '#/$defs/hex' }, tags: { type: 'array' } },
        required: ['title', 'color', 'tags'],
      },
    };
    const model = new ScriptedMainModel([calls(['render_design', { patch: blue }]), final('ok', blue)]);
    const harness = createPatchHarness({
      designSpec,
      mainModel: model,
      visionModel: new ScriptedVisionModel(),
      renderer: recordingRenderer(),
    });

    const result = await harness.run(base);

    expect(result.toolOutcomes[0]?.status).toBe('succeeded');
    const schemas = model.requests[0]?.tools.filter((tool) => tool.name !== 'retrieve_evidence') ?? [];
    expect(schemas.map((tool) => tool.name)).toEqual(['commit_render', 'render_design']);
    for (const tool of schemas) {
      const text = JSON.stringify(tool.inputSchema);
      expect(text, tool.name).not.toContain('$defs');
      expect(text, tool.name).not.toContain('$ref');
      expect(text, tool.name).not.toContain('^#[0-9a-f]{6}$');
    }
    expect(model.requests[0]?.messages[0]?.content).toContain('$defs');
  });
});
