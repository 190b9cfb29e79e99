import {
  Agent,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Runner,
  run,
  type StreamEvent,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  createGuardPipeline,
  type GuardEvent,
  guardAgentTools,
  guardModel,
  guardModelProvider,
  ModelCallRefusedError,
  stoppedVerdictOf,
} from '../../src/adapters/openai-agents.js';
import { budgetFuse, createFuseBox, loopFuse } from '../../src/index.js';

setTracingDisabled(true);

type DoneEvent = Extract<StreamEvent, { type: 'response_done' }>;

/** One scripted answer: a function call or text, with the usage the provider reports for it. */
type Turn = { readonly call?: string; readonly text?: string; readonly usage?: Usage };

function outputOf(turn: Turn, index: number): ModelResponse['output'] {
  if (turn.call !== undefined) {
    const args = JSON.stringify({ id: 'o_1' });
    return [{ type: 'function_call', callId: `call_${index}`, name: turn.call, arguments: args, status: 'completed' }];
  }
  const content = [{ type: 'output_text' as const, text: turn.text ?? 'done' }];
  return [{ type: 'message', role: 'assistant', status: 'completed', content }];
}

const tokens = (input: number, output: number) =>
  new Usage({ requests: 1, inputTokens: input, outputTokens: output, totalTokens: input + output });

/** A `Model` answering from a script, streamed or not; every request it received is kept. */
class ScriptedModel implements Model {
  readonly requests: ModelRequest[] = [];
  readonly #turns: Turn[];

  constructor(turns: readonly Turn[]) {
    this.#turns = [...turns];
  }

  #next(request: ModelRequest): ModelResponse & { readonly text: string | undefined } {
    this.requests.push(request);
    const turn = this.#turns.shift() ?? { text: 'script exhausted' };
    return { usage: turn.usage ?? tokens(10, 5), output: outputOf(turn, this.requests.length), text: turn.text };
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    const { usage, output } = this.#next(request);
    return { usage, output };
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const { usage, output, text } = this.#next(request);
    yield { type: 'response_started' };
    if (text !== undefined) yield { type: 'output_text_delta', delta: text };
    const response = { id: `resp_${this.requests.length}`, usage, output: output as DoneEvent['response']['output'] };
    yield { type: 'response_done', response };
  }
}

const lookup = tool({
  name: 'lookup',
  description: 'Look an order up',
  parameters: z.object({ id: z.string() }),
  execute: async ({ id }) => `order ${id}: shipped`,
});

const scope = { runId: 'run-1' };

function budgetPipeline(maxTokens: number, defaultMaxOutputTokens = 1_000) {
  const fuses = createFuseBox({ budget: budgetFuse({ maxTokens }) });
  const events: GuardEvent[] = [];
  const pipeline = createGuardPipeline({ fuses, defaultMaxOutputTokens, onEvent: (event) => events.push(event) });
  return { pipeline, events, budget: () => fuses.forRun(scope.runId).stats().budget };
}

describe('guardModel', () => {
  it('stops the run before the model call that would cross the budget; that call is never sent', async () => {
    const { pipeline, budget } = budgetPipeline(9_000);
    const model = new ScriptedModel([
      { call: 'lookup', usage: tokens(3_500, 500) },
      { call: 'lookup', usage: tokens(3_500, 500) },
      { text: 'never sent' },
    ]);
    const agent = new Agent({
      name: 'support',
      model: guardModel(model, pipeline, { ...scope, model: 'gpt-4o-mini' }),
      tools: guardAgentTools([lookup], pipeline),
    });

    const result = await run(agent, 'where is o_1?', { context: scope });

    // Spent 8,000 of 9,000: the third call's estimate (prompt + its 1,000-token cap) does not fit;
    // the run ends with the refusal's note as its answer, the verdict on the last item.
    expect(String(result.finalOutput)).toContain('NOT');
    expect(stoppedVerdictOf(result.output.at(-1))).toMatchObject({ stage: 'model', code: 'budget_tokens_exceeded' });
    expect(model.requests).toHaveLength(2);
    expect(budget()).toMatchObject({ spentTokens: 8_000, reservedTokens: 0, outstanding: 0 });
    // Each sent request carried the cap its reservation assumed.
    expect(model.requests.map((request) => request.modelSettings.maxTokens)).toEqual([1_000, 1_000]);
  });

  it('books the usage of each response, a response of several requests included', async () => {
    const { pipeline, budget } = budgetPipeline(100_000);
    const split = new Usage({
      requests: 2,
      inputTokens: 50,
      outputTokens: 10,
      totalTokens: 60,
      requestUsageEntries: [
        { inputTokens: 30, outputTokens: 5, totalTokens: 35, inputTokensDetails: { cached_tokens: 20 } },
        { inputTokens: 20, outputTokens: 5, totalTokens: 25 },
      ],
    });
    const model = new ScriptedModel([
      { call: 'lookup', usage: tokens(100, 20) },
      { call: 'lookup', usage: split },
      { text: 'shipped', usage: tokens(200, 7) },
    ]);
    const agent = new Agent({
      name: 'support',
      model: guardModel(model, pipeline, scope),
      tools: guardAgentTools([lookup], pipeline),
    });

    const result = await run(agent, 'where is o_1?', { context: scope });

    expect(result.finalOutput).toBe('shipped');
    expect(model.requests).toHaveLength(3);
    expect(budget()).toMatchObject({ spentTokens: 120 + 60 + 207, missingUsage: 0, outstanding: 0 });
  });

  it('prices cached input tokens at their own rate, from the Usage details', async () => {
    const price = { inputPer1k: 1, outputPer1k: 2, cachedInputPer1k: 0 };
    const fuses = createFuseBox({ budget: budgetFuse({ maxUsd: 10, price }) });
    const pipeline = createGuardPipeline({ fuses, defaultMaxOutputTokens: 100 });
    const usage = new Usage({
      requests: 1,
      inputTokens: 1_000,
      outputTokens: 100,
      totalTokens: 1_100,
      inputTokensDetails: { cached_tokens: 400 },
    });
    const agent = new Agent({
      name: 'support',
      model: guardModel(new ScriptedModel([{ text: 'ok', usage }]), pipeline, scope),
    });

    await run(agent, 'hi', { context: scope });

    // 600 uncached at $1/1k, 400 cached at $0, 100 output at $2/1k.
    expect(fuses.forRun(scope.runId).stats().budget).toMatchObject({ spentTokens: 1_100, spentUsd: 0.8 });
  });

  it('books the reservation of a response that reports no tokens', async () => {
    const { pipeline, budget } = budgetPipeline(100_000, 100);
    const model = new ScriptedModel([{ text: 'ok', usage: new Usage({ requests: 1 }) }]);
    const agent = new Agent({ name: 'support', model: guardModel(model, pipeline, scope) });

    await run(agent, 'hi', { context: scope });

    const booked = budget();
    expect(booked).toMatchObject({ missingUsage: 1, outstanding: 0 });
    expect(booked?.spentTokens).toBeGreaterThan(100);
  });

  it('books the usage of a streamed response from its response_done event, every event passed on', async () => {
    const { pipeline, budget } = budgetPipeline(100_000);
    const model = new ScriptedModel([
      { call: 'lookup', usage: tokens(300, 40) },
      { text: 'order o_1 shipped', usage: tokens(400, 60) },
    ]);
    const agent = new Agent({
      name: 'support',
      model: guardModel(model, pipeline, scope),
      tools: guardAgentTools([lookup], pipeline),
    });

    const result = await run(agent, 'where is o_1?', { context: scope, stream: true });
    const deltas: string[] = [];
    for await (const event of result) {
      if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') {
        deltas.push(event.data.delta);
      }
    }
    await result.completed;

    expect(result.finalOutput).toBe('order o_1 shipped');
    expect(deltas).toEqual(['order o_1 shipped']);
    expect(budget()).toMatchObject({ spentTokens: 800, outstanding: 0 });
  });

  it('refuses a streamed request the budget cannot cover before it is sent; the stream ends with the note', async () => {
    const { pipeline } = budgetPipeline(500);
    const model = new ScriptedModel([{ text: 'never sent' }]);
    const agent = new Agent({ name: 'support', model: guardModel(model, pipeline, scope) });

    const result = await run(agent, 'hi', { context: scope, stream: true });
    const deltas: string[] = [];
    for await (const event of result) {
      if (event.type === 'raw_model_stream_event' && event.data.type === 'output_text_delta') {
        deltas.push(event.data.delta);
      }
    }
    await result.completed;

    expect(model.requests).toHaveLength(0);
    expect(deltas).toEqual([result.finalOutput]);
    expect(stoppedVerdictOf(result.output.at(-1))).toMatchObject({ code: 'budget_tokens_exceeded' });
  });

  it('re-throws an aborted call as it is and gives its reservation back', async () => {
    const { pipeline, budget } = budgetPipeline(100_000);
    const aborted = new DOMException('The run was aborted', 'AbortError');
    const controller = new AbortController();
    let sent = 0;
    const model: Model = {
      async getResponse(request) {
        sent++;
        controller.abort(aborted);
        throw request.signal?.reason;
      },
      // biome-ignore lint/correctness/useYield: this model never streams
      async *getStreamedResponse() {
        throw new Error('not streamed');
      },
    };
    const agent = new Agent({ name: 'support', model: guardModel(model, pipeline, scope) });

    const outcome = run(agent, 'hi', { context: scope, signal: controller.signal });

    await expect(outcome).rejects.toBe(aborted);
    expect(sent).toBe(1);
    expect(budget()).toMatchObject({ spentTokens: 0, reservedTokens: 0, outstanding: 0 });
  });

  it('refuses the next model call of a run its loop fuse stopped', async () => {
    const events: GuardEvent[] = [];
    const pipeline = createGuardPipeline({
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2, terminal: true }) }),
      onEvent: (event) => events.push(event),
    });
    const model = new ScriptedModel([{ call: 'lookup' }, { call: 'lookup' }, { call: 'lookup' }, { text: 'done' }]);
    const agent = new Agent({
      name: 'support',
      model: guardModel(model, pipeline, scope),
      tools: guardAgentTools([lookup], pipeline),
    });

    const result = await run(agent, 'where is o_1?', { context: scope });

    // The second identical call is refused and stops the run; the third request is never sent,
    // and the run ends with the loop refusal's note.
    expect(model.requests).toHaveLength(2);
    expect(stoppedVerdictOf(result.output.at(-1))).toMatchObject({ code: 'loop_repeat' });
    expect(result.finalOutput).toBe(pipeline.forRun(scope).stopped?.message);
    const refusals = events.flatMap((event) =>
      event.type !== 'transcript_repair' && event.status === 'refused' ? [[event.type, event.code]] : [],
    );
    expect(refusals).toEqual([
      ['tool_call', 'loop_repeat'],
      ['model_call', 'run_stopped'],
    ]);
  });

  it('ends a streamed run its loop fuse stopped the same way: the note streams as the final answer', async () => {
    const pipeline = createGuardPipeline({
      fuses: createFuseBox({ loop: loopFuse({ repeatThreshold: 2, terminal: true }) }),
    });
    const model = new ScriptedModel([{ call: 'lookup' }, { call: 'lookup' }, { call: 'lookup' }, { text: 'done' }]);
    const agent = new Agent({
      name: 'support',
      model: guardModel(model, pipeline, scope),
      tools: guardAgentTools([lookup], pipeline),
    });

    const result = await run(agent, 'where is o_1?', { context: scope, stream: true });
    for await (const _event of result);
    await result.completed;

    expect(model.requests).toHaveLength(2);
    expect(stoppedVerdictOf(result.output.at(-1))).toMatchObject({ code: 'loop_repeat' });
    expect(result.finalOutput).toBe(pipeline.forRun(scope).stopped?.message);
  });

  it('tells the runner not to retry a refused request', async () => {
    const { pipeline } = budgetPipeline(100);
    const model: Model = new ScriptedModel([]);
    const guarded = guardModel(model, pipeline, scope);
    const error = new ModelCallRefusedError('gpt-4o-mini', {
      stage: 'model',
      code: 'budget_tokens_exceeded',
      message: 'The call to model `gpt-4o-mini` was NOT made',
      reason: 'over budget',
      terminal: true,
    });

    expect(await guarded.getRetryAdvice?.({ error } as never)).toMatchObject({ suggested: false });
  });

  it('rejects options without a run id', () => {
    const { pipeline } = budgetPipeline(100);
    expect(() => guardModel(new ScriptedModel([]), pipeline, { runId: '' })).toThrow(/runId/);
  });
});

describe('guardModelProvider', () => {
  it('guards every model a Runner gets from it, priced at the name the agent asked for', async () => {
    const { pipeline, events, budget } = budgetPipeline(100_000);
    const model = new ScriptedModel([
      { call: 'lookup', usage: tokens(100, 10) },
      { text: 'shipped', usage: tokens(120, 8) },
    ]);
    const asked: (string | undefined)[] = [];
    const provider = {
      getModel(name?: string): Model {
        asked.push(name);
        return model;
      },
    };
    const runner = new Runner({ modelProvider: guardModelProvider(provider, pipeline, scope) });
    const agent = new Agent({ name: 'support', model: 'gpt-4o-mini', tools: guardAgentTools([lookup], pipeline) });

    const result = await runner.run(agent, 'where is o_1?', { context: scope });

    expect(result.finalOutput).toBe('shipped');
    expect(asked.every((name) => name === 'gpt-4o-mini')).toBe(true);
    expect(events.filter((event) => event.type === 'model_call').map((event) => event.model)).toEqual([
      'gpt-4o-mini',
      'gpt-4o-mini',
    ]);
    expect(budget()).toMatchObject({ spentTokens: 238, outstanding: 0 });
  });
});
