import { describe, expect, it } from 'vitest';
import {
  type AgentTool,
  createPatchHarness,
  HarnessInputError,
  type InputArtifact,
  type RenderedArtifact,
} from '../../src/harness/index.js';
import { defined, poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';
import { expectNoBytes, image, ScriptedVisionModel } from './helpers/visual.js';

const base = { request: 'Match the sketch', design: poster(), canEdit: true };

const readArtifact: AgentTool<{ id: string }> = {
  name: 'read_artifact',
  description: 'Size of an input artifact',
  inputSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  execute: async ({ id }, context) => {
    const artifact = await context.loadInputArtifact(id);
    return { bytes: artifact.bytes.byteLength, mediaType: artifact.mediaType };
  },
};

function lazy(id: string, load: () => RenderedArtifact | Promise<RenderedArtifact>) {
  let loads = 0;
  const artifact: InputArtifact = {
    id,
    kind: 'sketch',
    metadata: { page: 1 },
    load: () => {
      loads++;
      return load();
    },
  };
  return { artifact, loads: () => loads };
}

describe('input artifacts', () => {
  it('loads a lazy artifact once per run for every tool that reads it, and shows the model descriptors only', async () => {
    const sketch = lazy('sketch', () => image('sketch'));
    const model = new ScriptedMainModel([
      calls(['read_artifact', { id: 'sketch' }], ['inspect_visual', { artifact_id: 'sketch' }]),
      calls(['read_artifact', { id: 'sketch' }]),
      final('ok'),
      calls(['read_artifact', { id: 'sketch' }]),
      final('ok'),
    ]);
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      visionModel: new ScriptedVisionModel(),
      tools: [readArtifact as AgentTool],
    });

    const result = await harness.run({ ...base, inputArtifacts: [sketch.artifact] });

    expect(sketch.loads()).toBe(1);
    expect(result.toolOutcomes.map((o) => o.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
    expect(defined(model.requests[0]).messages.at(-1)?.content).toContain(
      'Input artifacts: [{"id":"sketch","kind":"sketch","metadata":{"page":1}}]',
    );
    expectNoBytes(model.requests.map((request) => request.messages));

    await harness.run({ ...base, inputArtifacts: [sketch.artifact] });
    expect(sketch.loads()).toBe(2); // a new run loads it again
  });

  it('returns a failed load to the tool (not kept), so a later call loads it again', async () => {
    let attempt = 0;
    const flaky = lazy('sketch', () => {
      attempt++;
      if (attempt === 1) throw new Error('storage unavailable');
      return image('sketch');
    });
    const model = new ScriptedMainModel([
      calls(['read_artifact', { id: 'sketch' }]),
      calls(['read_artifact', { id: 'sketch' }], ['read_artifact', { id: 'missing' }]),
      final('ok'),
    ]);

    const result = await createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      tools: [readArtifact as AgentTool],
    }).run({
      ...base,
      inputArtifacts: [flaky.artifact],
    });

    expect(result.toolOutcomes.map((o) => [o.status, o.error?.code ?? null])).toEqual([
      ['failed', 'artifact_load_failed'],
      ['succeeded', null],
      ['rejected', 'unknown_input_artifact'],
    ]);
    expect(result.toolOutcomes[0]?.error?.message).toMatch(/`sketch` could not be loaded: storage unavailable/);
    expect(result.toolOutcomes[2]?.error?.message).toMatch(/Unknown input artifact `missing` \(available: `sketch`\)/);
    expect(flaky.loads()).toBe(2);
  });

  it('gives tools a copy of an eager artifact’s bytes, checked on entry', async () => {
    const bytes = new Uint8Array([1, 2, 3]);
    const seen: Uint8Array[] = [];
    const mutate: AgentTool = {
      name: 'mutate',
      description: 'Writes to what it loads',
      inputSchema: { type: 'object' },
      execute: async (_input, context) => {
        const artifact = await context.loadInputArtifact('logo');
        seen.push(artifact.bytes.slice());
        artifact.bytes.fill(9);
        return 'ok';
      },
    };
    const model = new ScriptedMainModel([calls(['mutate', {}]), calls(['mutate', {}]), final('ok')]);

    await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [mutate] }).run({
      ...base,
      inputArtifacts: [{ id: 'logo', kind: 'logo', artifact: { bytes, mediaType: 'image/png' } }],
    });

    expect(seen).toEqual([new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3])]);
    expect(bytes).toEqual(new Uint8Array([1, 2, 3]));
  });

  it('refuses unusable input artifacts with the field that is wrong', async () => {
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: new ScriptedMainModel([]),
      limits: { maxInputArtifacts: 2, maxInputArtifactBytes: 8 },
    });
    const png = { bytes: new Uint8Array([1]), mediaType: 'image/png' };
    const cases: [unknown, string][] = [
      [[{ id: 'a', kind: 'sketch', artifact: png, load: () => png }], 'inputArtifacts[0]'],
      [[{ id: 'a', kind: 'sketch' }], 'inputArtifacts[0]'],
      [[{ id: 'a', kind: '', artifact: png }], 'inputArtifacts[0].kind'],
      [[{ id: 'a b', kind: 'sketch', artifact: png }], 'inputArtifacts[0].id'],
      [[{ id: 'a', kind: 'sketch', artifact: png, metadata: [1] }], 'inputArtifacts[0].metadata'],
      [[{ id: 'a', kind: 'sketch', artifact: { ...png, bytes: new Uint8Array(9) } }], 'inputArtifacts[0].artifact'],
      [[{ id: 'a', kind: 'sketch', load: 'later' }], 'inputArtifacts[0].load'],
      [Array.from({ length: 3 }, (_, i) => ({ id: `a${i}`, kind: 'sketch', artifact: png })), 'inputArtifacts'],
    ];

    for (const [inputArtifacts, field] of cases) {
      const error = await harness
        .run({ ...base, inputArtifacts: inputArtifacts as InputArtifact[] })
        .catch((caught: unknown) => caught);
      expect(error, field).toBeInstanceOf(HarnessInputError);
      expect(error, field).toMatchObject({ field });
    }
  });
});
