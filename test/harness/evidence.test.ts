import { describe, expect, it } from 'vitest';
import { type AgentTool, createPatchHarness, type ModelRequest } from '../../src/harness/index.js';
import { defined, poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';

const base = { request: 'Pick a palette', design: poster(), canEdit: true };

const palettes: AgentTool<Record<string, never>, { palettes: { name: string; colors: string[] }[] }> = {
  name: 'list_palettes',
  description: 'Every brand palette',
  inputSchema: { type: 'object' },
  execute: () => ({
    palettes: Array.from({ length: 40 }, (_, i) => ({
      name: `p${i}`,
      colors: Array.from({ length: 8 }, (_, j) => `#${String(i * 8 + j).padStart(6, '0')}`),
    })),
  }),
  modelView: (result, { ref }) => ({
    count: result.palettes.length,
    names: result.palettes.map((p) => p.name),
    more: `retrieve_evidence ref ${ref}`,
  }),
};

function lastToolContent(request: ModelRequest | undefined): unknown {
  const message = request?.messages.at(-1);
  if (message?.role !== 'tool') throw new Error('Expected a tool message last');
  return JSON.parse(message.content);
}

/** A model that lists palettes, then retrieves with `retrieval(ref)`, then answers. */
function modelRetrieving(retrieval: (ref: string) => unknown): ScriptedMainModel {
  return new ScriptedMainModel([
    calls(['list_palettes', {}]),
    (request) => {
      const { ref } = lastToolContent(request) as { ref: string };
      return calls(['retrieve_evidence', retrieval(ref)]);
    },
    final('ok'),
  ]);
}

describe('modelView and retrieve_evidence', () => {
  it('shows the model the projection, and lets it retrieve part of the full result by pointer', async () => {
    const model = modelRetrieving((ref) => ({ ref, pointer: '/palettes/3/colors/1' }));

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [palettes] }).run(base);

    const shown = lastToolContent(model.requests[1]) as { ref: string; result: { count: number } };
    expect(shown.result.count).toBe(40);
    expect(shown.ref).toMatch(/^ev_[0-9a-f]{16}$/);
    expect(result.toolOutcomes[0]?.view).toEqual(shown.result);
    expect(result.toolOutcomes[0]?.result).toEqual(palettes.execute({}, undefined as never));
    expect(lastToolContent(model.requests[2])).toEqual({
      ref: shown.ref,
      pointer: '/palettes/3/colors/1',
      value: '#000025',
    });
  });

  it('refuses a value over the retrieval byte bound, describing its shape', async () => {
    const model = modelRetrieving((ref) => ({ ref, pointer: '/palettes' }));
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      tools: [palettes],
      limits: { maxEvidenceRetrievalBytes: 512 },
    });

    const result = await harness.run(base);

    const outcome = defined(result.toolOutcomes[1]);
    expect(outcome).toMatchObject({ tool: 'retrieve_evidence', status: 'failed' });
    expect(outcome.error?.message).toMatch(/over the 512-byte limit: it is an array of 40 items/);
  });

  it('refuses a ref that is not from this run, and a malformed pointer', async () => {
    const first = modelRetrieving((ref) => ({ ref, pointer: '' }));
    const harness = createPatchHarness({ designSpec: posterSpec, mainModel: first, tools: [palettes] });
    await harness.run(base);
    const otherRun = 'ev_0123456789abcdef';
    const second = new ScriptedMainModel([
      calls(['retrieve_evidence', { ref: otherRun }], ['retrieve_evidence', { ref: 'nope' }]),
      final('ok'),
    ]);

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: second, tools: [palettes] }).run(base);

    expect(result.toolOutcomes.map((o) => [o.status, o.error?.code])).toEqual([
      ['failed', 'tool_error'],
      ['rejected', 'invalid_input'],
    ]);
    expect(result.toolOutcomes[0]?.error?.message).toMatch(/Unknown evidence ref `ev_0123456789abcdef`/);
  });

  it('bounds retrievals per run', async () => {
    const model = new ScriptedMainModel([
      calls(['list_palettes', {}]),
      (request) => {
        const { ref } = lastToolContent(request) as { ref: string };
        return calls(
          ['retrieve_evidence', { ref, pointer: '/palettes/0' }],
          ['retrieve_evidence', { ref, pointer: '/palettes/1' }],
        );
      },
      final('ok'),
    ]);
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      tools: [palettes],
      limits: { maxEvidenceRetrievals: 1 },
    });

    const result = await harness.run(base);

    expect(result.toolOutcomes.map((o) => o.error?.code ?? o.status)).toEqual([
      'succeeded',
      'succeeded',
      'call_budget_exhausted',
    ]);
  });
});

describe('the default context policy', () => {
  it('compacts a tool result after three model calls, keeping its ref retrievable', async () => {
    const probe: AgentTool = {
      name: 'probe',
      description: 'd',
      inputSchema: { type: 'object' },
      execute: (input) => ({ echo: input }),
    };
    const model = new ScriptedMainModel([
      calls(['list_palettes', {}]),
      calls(['probe', { n: 1 }]),
      calls(['probe', { n: 2 }]),
      calls(['probe', { n: 3 }]),
      final('ok'),
    ]);

    const result = await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [palettes, probe] }).run(
      base,
    );

    const ref = defined(result.toolOutcomes[0]?.evidenceRef);
    const resultOf = (request: ModelRequest | undefined) =>
      request?.messages.find((m) => m.role === 'tool' && m.toolCallId === 'c1' && m.toolName === 'list_palettes');
    expect(JSON.parse(defined(resultOf(model.requests[3])).content)).toMatchObject({ result: { count: 40 } });
    expect(JSON.parse(defined(resultOf(model.requests[4])).content)).toEqual({
      compacted: true,
      ref,
      note: 'This result was compacted; call retrieve_evidence with its ref to see it again',
    });
    expect(result.traces[4]?.modelCall.input).toMatchObject({ tools: ['list_palettes', 'probe', 'retrieve_evidence'] });
  });
});
