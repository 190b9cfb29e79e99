import { describe, expect, it } from 'vitest';
import { createPatchHarness, RunLimitExceededError } from '../../src/harness/index.js';
import { poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel, text } from './helpers/scripted-main-model.js';

function harnessWith(model: ScriptedMainModel, limits = {}) {
  return createPatchHarness({ designSpec: posterSpec, mainModel: model, limits });
}

const makeBlue = [{ op: 'replace', path: '/color', value: '#0000ff' }];

describe('harness.run: answers', () => {
  it('returns advice with a null patch, the design unchanged', async () => {
    const model = new ScriptedMainModel([final('Red works well for a sale.')]);

    const result = await harnessWith(model).run({ request: 'Is red right?', design: poster(), canEdit: true });

    expect(result).toMatchObject({
      message: 'Red works well for a sale.',
      patch: null,
      changed: false,
      design: poster(),
    });
    expect(result.toolOutcomes).toEqual([]);
    expect(result.traces.map((trace) => trace.kind)).toEqual(['final']);
  });

  it('returns a validated proposal and never touches the caller’s design', async () => {
    const stored = poster();
    const model = new ScriptedMainModel([final('Made it blue.', makeBlue)]);

    const result = await harnessWith(model).run({ request: 'Make it blue', design: stored, canEdit: true });

    expect(result).toMatchObject({ patch: makeBlue, changed: true, design: { ...poster(), color: '#0000ff' } });
    expect(stored).toEqual(poster());
  });

  it('refuses a patch when canEdit is false, then accepts the advice', async () => {
    const model = new ScriptedMainModel([
      final('Made it blue.', makeBlue),
      final('Blue would suit it; I cannot edit here.'),
    ]);

    const result = await harnessWith(model).run({ request: 'Make it blue', design: poster(), canEdit: false });

    expect(result).toMatchObject({ patch: null, changed: false });
    expect(result.traces.map((trace) => trace.validation?.code)).toEqual(['edit_not_allowed', undefined]);
    const prompt = model.requests[0]?.messages.at(-1)?.content;
    expect(prompt).toContain('Editing allowed: no');
    expect(model.requests[1]?.messages.at(-1)?.content).toContain('edit_not_allowed');
  });
});

describe('harness.run: protocol errors', () => {
  it('recovers from a protocol error: the model is told why, with its bad answer kept in the transcript', async () => {
    const model = new ScriptedMainModel([text('Sure! I will make it blue.'), final('Made it blue.', makeBlue)]);

    const result = await harnessWith(model).run({ request: 'Make it blue', design: poster(), canEdit: true });

    expect(result.patch).toEqual(makeBlue);
    const second = model.requests[1]?.messages ?? [];
    expect(second.at(-2)).toEqual({ role: 'assistant', content: 'Sure! I will make it blue.' });
    expect(second.at(-1)?.content).toMatch(/could not be used: the answer is not JSON/);
    expect(result.traces.map((trace) => trace.kind)).toEqual(['protocol_error', 'final']);
  });

  it('refuses extra members, a wrong shape, fences aside', async () => {
    const fenced = text('```json\n{"message":"ok","patch":null}\n```');
    const model = new ScriptedMainModel([
      text('{"message":"x","patch":null,"extra":1}'),
      text('{"message":1}'),
      fenced,
    ]);

    const result = await harnessWith(model).run({ request: 'Hi', design: poster(), canEdit: true });

    expect(result.message).toBe('ok');
    expect(result.traces.map((trace) => trace.kind)).toEqual(['protocol_error', 'protocol_error', 'final']);
  });

  it('stops with RunLimitExceededError once the protocol retries are exhausted', async () => {
    const model = new ScriptedMainModel([text('no'), text('still no'), text('never')]);

    const error = await harnessWith(model, { maxProtocolRetries: 2 })
      .run({ request: 'Hi', design: poster(), canEdit: true })
      .catch((caught: unknown) => caught);

    expect(error).toBeInstanceOf(RunLimitExceededError);
    expect(error).toMatchObject({ limit: 'maxProtocolRetries', value: 2, code: 'run_limit_exceeded' });
    expect(model.requests).toHaveLength(3);
  });

  it('resets the protocol counter after a usable answer', async () => {
    const model = new ScriptedMainModel([
      text('bad'),
      calls(['lookup_color', { name: 'ocean' }]),
      text('bad again'),
      final('done'),
    ]);
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      tools: [{ name: 'lookup_color', description: 'd', inputSchema: { type: 'object' }, execute: () => ({}) }],
      limits: { maxProtocolRetries: 1 },
    });

    await expect(harness.run({ request: 'Hi', design: poster(), canEdit: true })).resolves.toMatchObject({
      message: 'done',
    });
  });
});

describe('harness.run: validation retries', () => {
  it('feeds an invalid final back to the model with its pointer, then accepts the fix', async () => {
    const invalid = [{ op: 'replace', path: '/color', value: 'blue' }];
    const model = new ScriptedMainModel([final('Blue.', invalid), final('Blue.', makeBlue)]);

    const result = await harnessWith(model).run({ request: 'Make it blue', design: poster(), canEdit: true });

    expect(result.patch).toEqual(makeBlue);
    expect(result.traces[0]?.validation).toMatchObject({
      status: 'refused',
      code: 'design_invalid',
      pointer: '/color',
    });
    expect(model.requests[1]?.messages.at(-1)?.content).toContain('`/color`');
  });

  it('refuses a candidate that is not in its stored form (round-trip), naming the pointer', async () => {
    const unsorted = [
      { op: 'add', path: '/tags/-', value: 'blue' },
      { op: 'add', path: '/tags/-', value: 'autumn' },
    ];
    const sorted = [{ op: 'replace', path: '/tags', value: ['autumn', 'blue', 'retail', 'sale'] }];
    const model = new ScriptedMainModel([final('Tagged.', unsorted), final('Tagged.', sorted)]);

    const result = await harnessWith(model).run({ request: 'Tag it', design: poster(), canEdit: true });

    expect(result.traces[0]?.validation).toMatchObject({ code: 'design_round_trip', pointer: '/tags/0' });
    expect(result.design).toEqual({ ...poster(), tags: ['autumn', 'blue', 'retail', 'sale'] });
  });

  it('refuses a patch that does not apply, naming the operation', async () => {
    const model = new ScriptedMainModel([final('x', [{ op: 'remove', path: '/nope' }]), final('ok')]);

    const result = await harnessWith(model).run({ request: 'x', design: poster(), canEdit: true });

    expect(result.traces[0]?.validation?.code).toBe('patch_path_not_found');
    expect(model.requests[1]?.messages.at(-1)?.content).toContain('operation 0');
  });

  it('stops once validation retries are exhausted within one work phase', async () => {
    const bad = final('x', [{ op: 'replace', path: '/color', value: 'blue' }]);
    const model = new ScriptedMainModel([
      bad,
      { ...bad, text: bad.text.replace('blue', 'navy') },
      final('x', [{ op: 'replace', path: '/title', value: '' }]),
    ]);

    await expect(
      harnessWith(model, { maxValidationRetries: 2 }).run({ request: 'x', design: poster(), canEdit: true }),
    ).rejects.toMatchObject({ limit: 'maxValidationRetries' });
  });

  it('resets the validation counter when the model does new work (a work phase)', async () => {
    const bad = final('x', [{ op: 'replace', path: '/color', value: 'blue' }]);
    const model = new ScriptedMainModel([bad, calls(['lookup_color', { name: 'ocean' }]), bad, final('ok', makeBlue)]);
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      tools: [{ name: 'lookup_color', description: 'd', inputSchema: { type: 'object' }, execute: () => ({}) }],
      limits: { maxValidationRetries: 1 },
    });

    await expect(harness.run({ request: 'x', design: poster(), canEdit: true })).resolves.toMatchObject({
      patch: makeBlue,
    });
  });

  it('stops after maxSteps model calls', async () => {
    const model = new ScriptedMainModel(Array.from({ length: 5 }, (_, i) => calls(['nope', {}, `c${i}`])));

    await expect(
      harnessWith(model, { maxSteps: 3 }).run({ request: 'x', design: poster(), canEdit: true }),
    ).rejects.toMatchObject({
      limit: 'maxSteps',
      value: 3,
    });
    expect(model.requests).toHaveLength(3);
  });
});
