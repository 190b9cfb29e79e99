import { describe, expect, it } from 'vitest';
import {
  compactSupersededResults,
  createPatchHarness,
  HarnessConfigError,
  type ModelMessage,
} from '../../src/harness/index.js';
import { defined, poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';
import { recordingRenderer, ScriptedVisionModel } from './helpers/visual.js';

const info = { runId: 'r', step: 9, modelCalls: 8, runPromptIndex: 1 };

/** One assistant turn calling `name`, and its result. */
function turn(id: string, name: string, input: unknown, result: unknown, isError = false): ModelMessage[] {
  const evidenceRef = `ev_${id.padStart(16, '0')}`;
  return [
    { role: 'assistant', content: '', toolCalls: [{ id, name, input }] },
    {
      role: 'tool',
      toolCallId: id,
      toolName: name,
      content: JSON.stringify(isError ? { status: 'failed', error: result } : { ref: evidenceRef, result }),
      isError,
      ...(isError ? {} : { evidenceRef }),
    },
  ];
}

const high = { verdict: 'needs_work', findings: [{ severity: 'high', message: 'Title clipped' }] };

function transcript(): ModelMessage[] {
  return [
    { role: 'system', content: 'S' },
    { role: 'user', content: 'P' },
    ...turn('1', 'lookup_color', { name: 'ocean' }, { hex: '#0055aa' }),
    ...turn('2', 'check_approval', {}, { approved: true, by: 'ops' }),
    ...turn('3', 'render_design', { patch: [] }, { render_ref: 'render:1', visual_review: high }),
    ...turn('4', 'render_design', { patch: [] }, { render_ref: 'render:2', visual_review: 'fine' }),
    ...turn(
      '5',
      'render_design',
      { patch: [], base_render_ref: 'render:2' },
      {
        render_ref: 'render:3',
        visual_review: { verdict: 'needs_work', findings: [{ severity: 'HIGH', message: 'Low contrast' }] },
      },
    ),
    ...turn('6', 'commit_render', { render_ref: 'render:3' }, { committed: 'render:3', changed: true, operations: 1 }),
    ...turn(
      '7',
      'render_design',
      { patch: [], base_render_ref: 'render:3' },
      { render_ref: 'render:4', visual_review: 'better' },
    ),
    ...turn('8', 'lookup_color', { name: 'x' }, { code: 'tool_error', message: 'no such color' }, true),
    ...turn('9', 'commit_render', { render_ref: 'render:2' }, { committed: 'render:2', changed: false, operations: 0 }),
  ];
}

function compactedIds(messages: readonly ModelMessage[]): string[] {
  return messages.flatMap((m) => (m.role === 'tool' && m.content.includes('"compacted":true') ? [m.toolCallId] : []));
}

describe('compactSupersededResults (the default context policy)', () => {
  it('keeps the latest review, the committed render, unresolved high findings, errors and authorisation evidence', () => {
    const policy = compactSupersededResults({ authorizationTools: ['check_approval'] });

    const out = policy.apply(transcript(), info) as ModelMessage[];

    // lookup_color (old), render:3 (superseded; its high finding was followed up by render:4), the earlier commit.
    expect(compactedIds(out)).toEqual(['1', '5', '6']);
    const render3 = out.find((m) => m.role === 'tool' && m.toolCallId === '5');
    expect(JSON.parse(defined(render3).content)).toEqual({
      compacted: true,
      ref: 'ev_0000000000000005',
      render_ref: 'render:3',
      note: 'Superseded; call retrieve_evidence with its ref to see it again',
    });
    expect(out).toHaveLength(transcript().length);
  });

  it('compacts authorisation evidence like any other result when not named, and refuses bad options', () => {
    const out = compactSupersededResults().apply(transcript(), info) as ModelMessage[];

    expect(compactedIds(out)).toEqual(['1', '2', '5', '6']);
    expect(() => compactSupersededResults({ afterModelCalls: 0 })).toThrow(HarnessConfigError);
  });

  it('is the default: a superseded render is compacted in the next request, keeping its refs', async () => {
    const model = new ScriptedMainModel([
      calls(['render_design', { patch: [{ op: 'replace', path: '/color', value: '#0055aa' }] }]),
      calls(['render_design', { patch: [{ op: 'replace', path: '/color', value: '#00aa55' }] }]),
      final('ok'),
    ]);
    const harness = createPatchHarness({
      designSpec: posterSpec,
      mainModel: model,
      visionModel: new ScriptedVisionModel(),
      renderer: recordingRenderer(),
    });

    await harness.run({ request: 'Try colors', design: poster(), canEdit: true });

    const tools = defined(model.requests[2]).messages.filter((m) => m.role === 'tool');
    expect(JSON.parse(defined(tools[0]).content)).toMatchObject({
      compacted: true,
      render_ref: 'render:1',
      ref: expect.stringMatching(/^ev_/),
    });
    expect(JSON.parse(defined(tools[1]).content)).toMatchObject({
      result: { render_ref: 'render:2', visual_review: 'Looks fine' },
    });
  });
});
