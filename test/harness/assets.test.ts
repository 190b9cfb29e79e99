import { describe, expect, it } from 'vitest';
import {
  type AgentTool,
  type Asset,
  type AssetProvider,
  type CandidateContext,
  createPatchHarness,
  HarnessConfigError,
  type PatchHarnessOptions,
} from '../../src/harness/index.js';
import { poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';
import { image, ScriptedVisionModel, seen } from './helpers/visual.js';

const base = { request: 'Add a wave picture', design: poster(), canEdit: true };

function provider(name: string, assets: (query: string) => readonly Asset[], extra: Partial<AssetProvider> = {}) {
  const searches: { query: string; limit: number; provider: string }[] = [];
  const result: AssetProvider & { searches: typeof searches } = {
    name,
    searches,
    search: (query, limit, context) => {
      searches.push({ query, limit, provider: context.provider });
      return assets(query);
    },
    ...extra,
  };
  return result;
}

function setup(model: ScriptedMainModel, options: Partial<PatchHarnessOptions>, vision = new ScriptedVisionModel()) {
  return createPatchHarness({ designSpec: posterSpec, mainModel: model, visionModel: vision, ...options });
}

function codes(result: { toolOutcomes: readonly { status: string; error?: { code: string }; charged: boolean }[] }) {
  return result.toolOutcomes.map((o) => [o.status, o.error?.code ?? null, o.charged]);
}

describe('asset providers and inspect_asset', () => {
  it('searches two providers and inspects an asset, with refs, provenance and approvedAssets', async () => {
    const stock = provider('stock', (query) => [
      { id: 'p1', title: `Photo of ${query}`, kind: 'photo', uri: 'https://cdn/p1.jpg', preview: image('p1') },
      { id: 'p2', title: 'Another', kind: 'photo', metadata: { license: 'cc0' } },
    ]);
    const icons = provider('icons', () => [{ id: 'wave', kind: 'icon', uri: 'icons:wave' }], {
      description: 'Brand icons',
    });
    const vision = new ScriptedVisionModel([seen('A blue wave photo')]);
    const policySaw: CandidateContext[] = [];
    const model = new ScriptedMainModel([
      calls(['search_assets_stock', { query: 'ocean wave', limit: 2 }], ['search_assets_icons', { query: 'wave' }]),
      calls(['inspect_asset', { asset_ref: 'asset:1', questions: ['Does it match a summer sale?'] }]),
      final('Use asset:1.'),
    ]);
    const harness = setup(
      model,
      {
        assetProviders: [stock, icons],
        candidatePolicies: [
          {
            name: 'spy',
            check: (context) => {
              policySaw.push(context);
              return { ok: true };
            },
          },
        ],
      },
      vision,
    );

    const result = await harness.run({ ...base, runId: 'r1' });

    expect(model.requests[0]?.tools.map((t) => t.name)).toEqual([
      'inspect_asset',
      'retrieve_evidence',
      'search_assets_icons',
      'search_assets_stock',
    ]);
    expect(model.requests[0]?.tools.find((t) => t.name === 'search_assets_icons')?.description).toContain(
      'Brand icons',
    );
    expect(stock.searches).toEqual([{ query: 'ocean wave', limit: 2, provider: 'stock' }]);
    expect(icons.searches).toEqual([{ query: 'wave', limit: 10, provider: 'icons' }]);
    expect(result.toolOutcomes[0]?.result).toEqual({
      provider: 'stock',
      query: 'ocean wave',
      assets: [
        {
          ref: 'asset:1',
          id: 'p1',
          title: 'Photo of ocean wave',
          kind: 'photo',
          uri: 'https://cdn/p1.jpg',
          metadata: {},
          preview: true,
        },
        {
          ref: 'asset:2',
          id: 'p2',
          title: 'Another',
          kind: 'photo',
          uri: null,
          metadata: { license: 'cc0' },
          preview: false,
        },
      ],
      truncated: false,
      duplicates_skipped: 0,
    });
    expect(result.approvedAssets.map((a) => [a.ref, a.provider, a.id, a.provenance])).toEqual([
      ['asset:1', 'stock', 'p1', [{ provider: 'stock', query: 'ocean wave', callId: 'c1', stepId: 'r1/step-1' }]],
      ['asset:2', 'stock', 'p2', [{ provider: 'stock', query: 'ocean wave', callId: 'c1', stepId: 'r1/step-1' }]],
      ['asset:3', 'icons', 'wave', [{ provider: 'icons', query: 'wave', callId: 'c2', stepId: 'r1/step-1' }]],
    ]);
    expect(result.toolOutcomes[2]).toMatchObject({
      tool: 'inspect_asset',
      status: 'succeeded',
      charged: true,
      result: { asset_ref: 'asset:1', answer: 'A blue wave photo' },
    });
    expect(vision.requests[0]).toMatchObject({
      purpose: 'asset_inspection',
      questions: ['Does it match a summer sale?'],
    });
    expect(vision.requests[0]?.images[0]?.label).toMatch(/^asset:1 \(Photo of ocean wave\)/);
    expect(policySaw[0]?.approvedAssets.map((a) => a.ref)).toEqual(['asset:1', 'asset:2', 'asset:3']);
    expect(result.modelCalls.map((call) => call.purpose)).toEqual(['main', 'main', 'asset_inspection', 'main']);
    const { byPurpose } = result.usage;
    expect(byPurpose.asset_inspection).toMatchObject({ calls: 1, inputTokens: 50 });
    expect(byPurpose.main.calls + byPurpose.asset_inspection.calls).toBe(result.usage.calls);
    expect(byPurpose.main.totalTokens + byPurpose.asset_inspection.totalTokens).toBe(result.usage.totalTokens);
  });

  it('bounds searches: non-blank query, limit, per-provider budget, time limit; results cut to the limit', async () => {
    const many = provider('stock', () => Array.from({ length: 5 }, (_, i) => ({ id: `p${i}` })), { maxSearches: 2 });
    const stuck = provider('slow', () => [], { timeoutMs: 20 });
    stuck.search = () => new Promise<readonly Asset[]>(() => undefined);
    const model = new ScriptedMainModel([
      calls(
        ['search_assets_stock', { query: '   ' }],
        ['search_assets_stock', { query: 'x', limit: 11 }],
        ['search_assets_stock', { query: 'sea', limit: 2 }],
        ['search_assets_stock', { query: 'sky', limit: 1 }],
        ['search_assets_stock', { query: 'sun' }],
        ['search_assets_slow', { query: 'anything' }],
      ),
      final('ok'),
    ]);

    const result = await setup(model, { assetProviders: [many, stuck] }).run(base);

    expect(codes(result)).toEqual([
      ['rejected', 'invalid_input', false],
      ['rejected', 'invalid_input', false],
      ['succeeded', null, true],
      ['succeeded', null, true],
      ['rejected', 'call_budget_exhausted', false],
      ['timed_out', 'timeout', true],
    ]);
    expect(result.toolOutcomes[0]?.error?.message).toMatch(/query must not be blank/);
    expect(many.searches.map((s) => s.query)).toEqual(['sea', 'sky']);
    expect(result.toolOutcomes[2]?.result).toMatchObject({
      truncated: true,
      assets: [{ ref: 'asset:1' }, { ref: 'asset:2' }],
    });
    expect(result.toolOutcomes[3]?.result).toMatchObject({ truncated: true, assets: [{ ref: 'asset:1' }] });
  });

  it('skips identical duplicates, keeps one ref per asset across searches, and fails a search with a conflicting duplicate', async () => {
    const same = { id: 'p1', title: 'Wave' };
    const answers: (readonly Asset[])[] = [
      [same, { ...same }, { id: 'p2' }],
      [{ ...same }],
      [{ id: 'p3' }, { id: 'p1', title: 'Not the same wave' }],
      [{ id: 'p4' }, { id: 'p4', title: 'Two of me' }],
      [{ id: '' }],
    ];
    const stock = provider('stock', () => answers.shift() ?? []);
    const model = new ScriptedMainModel([
      calls(['search_assets_stock', { query: 'wave' }]),
      calls(['search_assets_stock', { query: 'waves' }]),
      calls(['search_assets_stock', { query: 'more waves' }]),
      calls(['search_assets_stock', { query: 'other' }]),
      calls(['search_assets_stock', { query: 'broken' }]),
      final('ok'),
    ]);

    const result = await setup(model, { assetProviders: [stock], limits: { maxAssetSearches: 8 } }).run(base);

    expect(codes(result)).toEqual([
      ['succeeded', null, true],
      ['succeeded', null, true],
      ['failed', 'asset_conflict', true],
      ['failed', 'asset_conflict', true],
      ['failed', 'asset_invalid', true],
    ]);
    expect(result.toolOutcomes[0]?.result).toMatchObject({
      duplicates_skipped: 1,
      assets: [{ ref: 'asset:1' }, { ref: 'asset:2' }],
    });
    expect(result.toolOutcomes[1]?.result).toMatchObject({ assets: [{ ref: 'asset:1', id: 'p1' }] });
    expect(result.toolOutcomes[2]?.error?.message).toMatch(
      /two different assets with the id `p1`; nothing from this search was kept/,
    );
    expect(result.approvedAssets.map((a) => [a.ref, a.id, a.provenance.map((p) => p.query)])).toEqual([
      ['asset:1', 'p1', ['wave', 'waves']],
      ['asset:2', 'p2', ['wave']],
    ]);
  });

  it('loads a lazy preview once per run, returns a failed load to the model for a retry, and bounds inspections', async () => {
    let loads = 0;
    const lazy: Asset = {
      id: 'p1',
      previewLoader: () => {
        loads++;
        if (loads === 1) throw new Error('CDN hiccup');
        return image('lazy');
      },
    };
    const huge: Asset = { id: 'p2', preview: { bytes: new Uint8Array(64), mediaType: 'image/png' } };
    const pdf: Asset = { id: 'p3', preview: { bytes: new Uint8Array(4), mediaType: 'application/pdf' } };
    const bare: Asset = { id: 'p4' };
    const stock = provider('stock', () => [lazy, huge, pdf, bare]);
    const inspect = (ref: string) => ['inspect_asset', { asset_ref: ref }] as const;
    const model = new ScriptedMainModel([
      calls(['search_assets_stock', { query: 'wave' }]),
      calls(inspect('asset:2'), inspect('asset:3'), inspect('asset:1'), inspect('asset:1'), inspect('asset:1')),
      calls(inspect('asset:4'), inspect('asset:9'), inspect('asset:1')),
      final('ok'),
    ]);
    const vision = new ScriptedVisionModel();

    const result = await setup(
      model,
      { assetProviders: [stock], limits: { maxAssetPreviewBytes: 32, maxAssetInspections: 2 } },
      vision,
    ).run(base);

    expect(codes(result).slice(1)).toEqual([
      ['failed', 'preview_invalid', false],
      ['failed', 'preview_invalid', false],
      ['failed', 'preview_load_failed', false],
      ['succeeded', null, true],
      ['succeeded', null, true],
      ['rejected', 'no_preview', false],
      ['rejected', 'unknown_asset_ref', false],
      ['rejected', 'inspection_budget_exhausted', false],
    ]);
    expect(result.toolOutcomes[1]?.error?.message).toMatch(/64 bytes, over the 32-byte limit/);
    expect(result.toolOutcomes[2]?.error?.message).toMatch(/not an image type/);
    expect(result.toolOutcomes[3]?.error?.message).toMatch(/CDN hiccup; you may try again/);
    expect(loads).toBe(2);
    expect(vision.requests).toHaveLength(2);

    // The next run loads it again: previews are cached per run only.
    const again = new ScriptedMainModel([
      calls(['search_assets_stock', { query: 'wave' }]),
      calls(inspect('asset:1')),
      final('ok'),
    ]);
    await setup(again, { assetProviders: [stock] }).run(base);
    expect(loads).toBe(3);
  });

  it('resolves asset refs only within their run', async () => {
    const stock = provider('stock', () => [{ id: 'p1', preview: image('p1') }]);
    const first = new ScriptedMainModel([calls(['search_assets_stock', { query: 'wave' }]), final('ok')]);
    const second = new ScriptedMainModel([calls(['inspect_asset', { asset_ref: 'asset:1' }]), final('ok')]);
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: { id: 'm', complete: (request) => (first.remaining > 0 ? first : second).complete(request) },
      visionModel: new ScriptedVisionModel(),
      assetProviders: [stock],
    });

    await harness.run(base);
    const result = await harness.run(base);

    expect(result.toolOutcomes[0]).toMatchObject({ status: 'rejected', error: { code: 'unknown_asset_ref' } });
    expect(result.approvedAssets).toEqual([]);
  });

  it('refuses bad provider configuration', () => {
    const make =
      (assetProviders: unknown, tools: AgentTool[] = []) =>
      () =>
        createPatchHarness({
          designSpec: posterSpec,
          mainModel: new ScriptedMainModel([]),
          assetProviders: assetProviders as AssetProvider[],
          tools,
        });
    const ok = provider('stock', () => []);
    const clash: AgentTool = {
      name: 'search_assets_stock',
      description: 'x',
      inputSchema: { type: 'object' },
      execute: () => 1,
    };

    expect(make([{ ...ok, name: 'Stock!' }])).toThrow(/assetProviders\[0\]\.name/);
    expect(make([ok, ok])).toThrow(/used twice/);
    expect(make([{ name: 'x' }])).toThrow(/assetProviders\[0\]\.search/);
    expect(make([ok], [clash])).toThrow(HarnessConfigError);
    expect(make([ok], [clash])).toThrow(/built-in tool's name/);
  });
});
