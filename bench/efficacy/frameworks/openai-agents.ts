/**
 * `@openai/agents` with a scripted `Model`: stock is `run(agent, input)` at the SDK's own
 * `maxTurns` (10), also streamed; guarded wraps the tools with `guardAgentTools`, repairs the
 * model input with `hyphaeCallModelInputFilter` and runs each model request through `guardModel`.
 */
import {
  Agent,
  type AgentInputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  type StreamEvent,
  setTracingDisabled,
  tool,
  Usage,
} from '@openai/agents';
import {
  guardAgentTools,
  guardModel,
  hyphaeCallModelInputFilter,
  stoppedVerdictOf,
} from '../../../src/adapters/openai-agents.js';
import {
  COMPLETED,
  createScript,
  type Deliver,
  type Delivery,
  type Meter,
  rejectPrompt,
  type Script,
  stopEnding,
  type TranscriptEvent,
  totalOf,
  transcriptError,
} from '../harness.js';
import type { Scenario } from '../scenarios.js';
import { type FakeProvider, toolDescriptions, toolSchemas } from '../tools.js';

// Traces would go to OpenAI's exporter.
setTracingDisabled(true);

/** The SDK's own default `maxTurns`. */
export const AGENTS_MAX_TURNS = 10;

/** The provider's refusal of a malformed input. */
class ProviderError extends Error {
  readonly status = 400;
}

/** A model answering from the script, with the provider's check on tool calls and results. */
class ScriptedAgentModel implements Model {
  readonly #script: Script;
  readonly #meter: Meter;

  constructor(script: Script, meter: Meter) {
    this.#script = script;
    this.#meter = meter;
  }

  async getResponse(request: ModelRequest): Promise<ModelResponse> {
    this.#meter.modelCalls++;
    const input = Array.isArray(request.input) ? request.input : [];
    const problem = transcriptError(
      input.flatMap((item): TranscriptEvent[] => {
        if (item.type === 'function_call') return [{ call: item.callId }];
        if (item.type === 'function_call_result') return [{ result: item.callId }];
        return [{ message: true }];
      }),
    );
    if (problem !== null) throw rejectPrompt(this.#meter, (text) => new ProviderError(text), problem);
    const turn = this.#script.next();
    const usage = new Usage({
      requests: 1,
      inputTokens: turn.usage.input,
      outputTokens: turn.usage.output,
      totalTokens: totalOf(turn.usage),
    });
    if ('text' in turn) {
      const content = [{ type: 'output_text' as const, text: turn.text }];
      return { usage, output: [{ type: 'message', role: 'assistant', status: 'completed', content }] };
    }
    return {
      usage,
      output: turn.calls.map((call) => ({
        type: 'function_call' as const,
        callId: call.id,
        name: call.name,
        arguments: JSON.stringify(call.args),
        status: 'completed' as const,
      })),
    };
  }

  async *getStreamedResponse(request: ModelRequest): AsyncIterable<StreamEvent> {
    const { usage, output } = await this.getResponse(request);
    const { requests, inputTokens, outputTokens, totalTokens } = usage;
    const response = { id: 'resp_scripted', usage: { requests, inputTokens, outputTokens, totalTokens }, output };
    yield { type: 'response_done', response: response as Extract<StreamEvent, { type: 'response_done' }>['response'] };
  }
}

function toolsOf(scenario: Scenario, provider: FakeProvider) {
  return scenario.tools.map((name) =>
    tool({
      name,
      description: toolDescriptions[name],
      parameters: toolSchemas[name],
      execute: async (args: unknown) => JSON.stringify(await provider.bodies[name](args)),
    }),
  );
}

function inputOf(scenario: Scenario): AgentInputItem[] {
  const history = scenario.history.flatMap((item): AgentInputItem[] => {
    if (item.role === 'user') return [{ role: 'user', content: item.text }];
    if (item.role === 'assistant') {
      return item.calls.map((call) => ({
        type: 'function_call',
        callId: call.id,
        name: call.name,
        arguments: JSON.stringify(call.args),
        status: 'completed',
      }));
    }
    return [
      {
        type: 'function_call_result',
        callId: item.callId,
        name: item.name,
        status: 'completed',
        output: { type: 'text', text: item.result },
      },
    ];
  });
  return [...history, { role: 'user', content: scenario.prompt }];
}

async function deliver(delivery: Delivery, stream: boolean): Promise<string> {
  const { scenario, provider, meter, pipeline, scope } = delivery;
  const model = new ScriptedAgentModel(createScript(scenario.script, meter), meter);
  const tools = toolsOf(scenario, provider);
  const agent = new Agent({
    name: 'efficacy',
    model: pipeline === undefined ? model : guardModel(model, pipeline, { ...scope, model: 'gpt-4o-mini' }),
    tools: pipeline === undefined ? tools : guardAgentTools(tools, pipeline),
  });
  const options = {
    context: { ...scope },
    ...(pipeline === undefined ? {} : { callModelInputFilter: hyphaeCallModelInputFilter(pipeline) }),
  };
  const result = stream
    ? await run(agent, inputOf(scenario), { ...options, stream: true }).then(async (streamed) => {
        await streamed.completed;
        if (streamed.error !== null && streamed.error !== undefined) throw streamed.error;
        return streamed;
      })
    : await run(agent, inputOf(scenario), options);
  const verdict = stoppedVerdictOf(result.output.at(-1));
  if (verdict !== undefined) return stopEnding(verdict);
  return result.finalOutput === undefined ? 'ended without an answer' : COMPLETED;
}

/** One delivery with `run()`, stock or guarded. */
export const deliverOpenAiAgents: Deliver = (delivery) => deliver(delivery, false);

/** One delivery with `run(…, { stream: true })`, read to its end, stock or guarded. */
export const deliverOpenAiAgentsStreamed: Deliver = (delivery) => deliver(delivery, true);
