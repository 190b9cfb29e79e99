import { describe, expect, it } from 'vitest';
import {
  type AgentTool,
  createPatchHarness,
  HarnessConfigError,
  type HarnessEvent,
  type HarnessLimits,
  type MainModel,
  RunLimitExceeded,
  RunLimitExceededError,
} from '../../src/harness/index.js';
import { lookupColor, poster, posterSpec } from './helpers/fixtures.js';
import { calls, final, ScriptedMainModel } from './helpers/scripted-main-model.js';

const base = { request: 'Make it ocean blue', design: poster(), canEdit: true };

function run(model: MainModel, limits: HarnessLimits, tools: AgentTool[] = [lookupColor as AgentTool]) {
  return createPatchHarness({ designSpec: posterSpec, mainModel: model, tools, limits })
    .run(base)
    .catch((caught: unknown) => caught);
}

describe('opt-in guards', () => {
  it('stops before a model call that could exceed the provider-token budget (budget fuse)', async () => {
    const heavy = { ...calls(['lookup_color', { name: 'ocean' }]), usage: { inputTokens: 3_000, outputTokens: 500 } };
    const model = new ScriptedMainModel([heavy, final('ok')]);

    const error = await run(model, { maxProviderTokens: 5_000, maxOutputTokens: 1_000 });

    expect(error).toBeInstanceOf(RunLimitExceededError);
    // The name it had before every error class ended in `Error` still catches it.
    expect(error).toBeInstanceOf(RunLimitExceeded);
    expect(error).toMatchObject({ limit: 'maxProviderTokens', value: 5_000 });
    expect(model.requests).toHaveLength(1);
  });

  it('lets a run within its provider-token budget finish', async () => {
    const model = new ScriptedMainModel([final('ok')]);

    await expect(run(model, { maxProviderTokens: 100_000 })).resolves.toMatchObject({ message: 'ok' });
  });

  it('stops when tool results shown to the model exceed their run total', async () => {
    const model = new ScriptedMainModel([
      calls(['lookup_color', { name: 'ocean' }], ['lookup_color', { name: 'sand' }]),
      final('ok'),
    ]);

    await expect(run(model, { maxToolResultBytesPerRun: 80 })).resolves.toMatchObject({
      limit: 'maxToolResultBytesPerRun',
      value: 80,
    });
  });

  it('stops on repeated identical calls with no new result (loop fuse)', async () => {
    const same = (id: string) => calls(['lookup_color', { name: 'ocean' }, id]);
    const model = new ScriptedMainModel([same('a'), same('b'), same('c'), final('ok')]);

    const error = await run(model, { maxIdenticalToolCalls: 2 });

    expect(error).toMatchObject({ limit: 'maxIdenticalToolCalls', value: 2 });
    expect((error as Error).message).toMatch(/3 times with the same arguments/);
  });

  it('stops when the same refused candidate comes back', async () => {
    const bad = final('x', [{ op: 'replace', path: '/color', value: 'blue' }]);
    const model = new ScriptedMainModel([bad, bad, final('ok')]);

    await expect(run(model, { maxIdenticalCandidates: 1, maxValidationRetries: 5 })).resolves.toMatchObject({
      limit: 'maxIdenticalCandidates',
    });
  });
});

describe('time limits and aborts', () => {
  it('stops a run that reaches its total time limit, without waiting for the model', async () => {
    const stuck: MainModel = { id: 'stuck', complete: () => new Promise(() => undefined) };

    const error = await run(stuck, { runTimeoutMs: 30 });

    expect(error).toBeInstanceOf(RunLimitExceededError);
    expect(error).toMatchObject({ limit: 'runTimeoutMs', value: 30 });
  });

  it('rejects with the caller’s own abort reason, never wrapped', async () => {
    const controller = new AbortController();
    const reason = new Error('user left');
    const model: MainModel = {
      id: 'm',
      complete: (request) => {
        expect(request.signal).toBe(controller.signal);
        controller.abort(reason);
        return new Promise(() => undefined);
      },
    };
    const events: HarnessEvent[] = [];

    const error = await createPatchHarness({ designSpec: posterSpec, mainModel: model })
      .run({ ...base, signal: controller.signal, onEvent: (event) => events.push(event) })
      .catch((caught: unknown) => caught);

    expect(error).toBe(reason);
    expect(events.at(-1)).toMatchObject({ type: 'run_finished', status: 'aborted' });
  });

  it('rejects at once when the signal is already aborted', async () => {
    const model = new ScriptedMainModel([final('ok')]);
    const reason = new Error('too late');

    await expect(
      createPatchHarness({ designSpec: posterSpec, mainModel: model }).run({
        ...base,
        signal: AbortSignal.abort(reason),
      }),
    ).rejects.toBe(reason);
    expect(model.requests).toHaveLength(0);
  });

  it('passes an abort inside a tool through as the caller’s reason, not as a tool failure', async () => {
    const controller = new AbortController();
    const reason = new Error('cancelled');
    const tool: AgentTool = {
      name: 'probe',
      description: 'd',
      inputSchema: { type: 'object' },
      execute: (_input, context) => {
        controller.abort(reason);
        throw context.signal?.reason;
      },
    };
    const model = new ScriptedMainModel([calls(['probe', {}]), final('ok')]);

    await expect(
      createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [tool] }).run({
        ...base,
        signal: controller.signal,
      }),
    ).rejects.toBe(reason);
    expect(model.requests).toHaveLength(1);
  });
});

describe('events', () => {
  it('reports the lifecycle with ids, status and elapsed time, never arguments or results', async () => {
    const events: HarnessEvent[] = [];
    const model = new ScriptedMainModel([calls(['lookup_color', { name: 'secret-name' }]), final('secret-answer')]);

    await createPatchHarness({ designSpec: posterSpec, mainModel: model, tools: [lookupColor] }).run({
      ...base,
      runId: 'r1',
      onEvent: (event) => events.push(event),
    });

    expect(events.map((e) => e.type)).toEqual([
      'run_started',
      'model_call_started',
      'model_call_finished',
      'tool_call_started',
      'tool_call_finished',
      'model_call_started',
      'model_call_finished',
      'validation_started',
      'validation_finished',
      'run_finished',
    ]);
    expect(events[4]).toMatchObject({
      runId: 'r1',
      stepId: 'r1/step-1',
      callId: 'c1',
      tool: 'lookup_color',
      status: 'succeeded',
    });
    expect(events.every((e) => e.runId === 'r1' && typeof e.at === 'number')).toBe(true);
    const text = JSON.stringify(events);
    expect(text).not.toContain('secret');
    expect(text).not.toContain('0055aa');
  });

  it('ignores a throwing event hook', async () => {
    const model = new ScriptedMainModel([final('ok')]);
    const onEvent = () => {
      throw new Error('observer bug');
    };

    await expect(
      createPatchHarness({ designSpec: posterSpec, mainModel: model }).run({ ...base, onEvent }),
    ).resolves.toMatchObject({ message: 'ok' });
  });
});

describe('configuration', () => {
  it('refuses bad limits, tools and options when the harness is created', () => {
    const model = new ScriptedMainModel([]);
    const create = (options: object) => () =>
      createPatchHarness({ designSpec: posterSpec, mainModel: model, ...options });

    expect(create({ limits: { maxSteps: 0 } })).toThrow(HarnessConfigError);
    expect(create({ limits: { maxStep: 3 } })).toThrow(/unknown limit/);
    expect(create({ limits: { patch: { maxOperations: -1 } } })).toThrow(HarnessConfigError);
    expect(create({ tools: [{ ...lookupColor, name: 'bad name' }] })).toThrow(/does not match/);
    expect(create({ tools: [lookupColor, lookupColor] })).toThrow(/defined twice/);
    expect(create({ tools: [{ ...lookupColor, name: 'retrieve_evidence' }] })).toThrow(/built-in/);
    expect(create({ tools: [{ ...lookupColor, inputSchema: { type: 'string' } }] })).toThrow(/type: "object"/);
    expect(create({ tools: [{ ...lookupColor, failureMode: 'explode' }] })).toThrow(/failureMode/);
    expect(create({ renderer: { render: () => undefined } })).toThrow(/visionModel/);
  });

  it('refuses unusable run input', async () => {
    const harness = createPatchHarness({ designSpec: posterSpec, mainModel: new ScriptedMainModel([]) });

    await expect(harness.run({ ...base, request: ' ' })).rejects.toMatchObject({ field: 'request' });
    await expect(harness.run({ ...base, canEdit: 'yes' as never })).rejects.toMatchObject({ field: 'canEdit' });
    await expect(harness.run({ ...base, design: { title: '' } })).rejects.toMatchObject({ field: 'design' });
    const png = { bytes: new Uint8Array([1]), mediaType: 'image/png' };
    const twice = [
      { id: 'a', kind: 'sketch', artifact: png },
      { id: 'a', kind: 'sketch', artifact: png },
    ];
    await expect(harness.run({ ...base, inputArtifacts: twice })).rejects.toMatchObject({
      field: 'inputArtifacts[1].id',
    });
  });
});
