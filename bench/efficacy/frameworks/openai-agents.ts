/**
 * `@openai/agents` with a scripted `Model`: stock is `run(agent, input, { maxTurns })`; guarded
 * wraps the tools with `guardAgentTools`, repairs the model input with
 * `hyphaeCallModelInputFilter` and runs each model request through `guardModel` (budget pre-flight,
 * stopped run, usage booking).
 */
import {
  Agent,
  type AgentInputItem,
  MaxTurnsExceededError,
  type Model,
  type ModelRequest,
  type ModelResponse,
  run,
  setTracingDisabled,
  ToolCallError,
  ToolInputGuardrailTripwireTriggered,
  tool,
  Usage,
} from '@openai/agents';
import {
  guardAgentTools,
  guardModel,
  hyphaeCallModelInputFilter,
  ModelCallRefusedError,
} from '../../../src/adapters/openai-agents.js';
import type { GuardPipeline } from '../../../src/adapters/pipeline.js';
import {
  COMPLETED,
  createScript,
  type Deliver,
  firstOrphan,
  type Meter,
  maxSteps,
  orphanMessage,
  type Script,
  stopEnding,
  type TranscriptEvent,
  totalOf,
} from '../harness.js';
import { MAX_STEPS, type Scenario } from '../scenarios.js';
import { type FakeProvider, toolDescriptions, toolSchemas } from '../tools.js';

// Traces would go to OpenAI's exporter.
setTracingDisabled(true);

/** The provider's refusal of a malformed input. */
class ProviderError extends Error {
  readonly status = 400;
}

/** A model answering from the script, with the provider's check on tool results. */
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
    const orphan = firstOrphan(
      input.flatMap((item): TranscriptEvent[] => {
        if (item.type === 'function_call') return [{ call: item.callId }];
        if (item.type === 'function_call_result') return [{ result: item.callId }];
        return [];
      }),
    );
    if (orphan !== null) throw new ProviderError(orphanMessage(orphan));
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

  // biome-ignore lint/correctness/useYield: the benchmark never streams
  async *getStreamedResponse(): AsyncIterable<never> {
    throw new Error('The scripted model does not stream');
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
  const history = scenario.history.map(
    (item): AgentInputItem =>
      item.role === 'user'
        ? { role: 'user', content: item.text }
        : {
            type: 'function_call_result',
            callId: item.callId,
            name: item.name,
            status: 'completed',
            output: { type: 'text', text: item.result },
          },
  );
  return [...history, { role: 'user', content: scenario.prompt }];
}

function endingOf(error: unknown, pipeline: GuardPipeline | undefined, scope: { runId: string }): string {
  if (error instanceof MaxTurnsExceededError) return maxSteps(MAX_STEPS);
  // A run the tools' fuses stopped ends at its next model request: the stop is what ended it.
  if (error instanceof ModelCallRefusedError) return stopEnding(pipeline?.forRun(scope).stopped ?? error.refusal);
  if (error instanceof ToolCallError && error.error instanceof ToolInputGuardrailTripwireTriggered) {
    const stoppedBy = pipeline?.forRun(scope).stopped;
    return `halted by the hyphae guardrail${stoppedBy ? ` (\`${stoppedBy.code}\`)` : ''}`;
  }
  throw error;
}

/** One delivery with `run()`, stock or guarded. */
export const deliverOpenAiAgents: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  const model = new ScriptedAgentModel(createScript(scenario.script, meter), meter);
  const tools = toolsOf(scenario, provider);
  const agent = new Agent({
    name: 'efficacy',
    model: pipeline === undefined ? model : guardModel(model, pipeline, { ...scope, model: 'gpt-4o-mini' }),
    tools: pipeline === undefined ? tools : guardAgentTools(tools, pipeline),
  });
  try {
    const result = await run(agent, inputOf(scenario), {
      maxTurns: MAX_STEPS,
      context: { ...scope },
      ...(pipeline === undefined ? {} : { callModelInputFilter: hyphaeCallModelInputFilter(pipeline) }),
    });
    const stoppedBy = pipeline?.forRun(scope).stopped;
    return stoppedBy ? stopEnding(stoppedBy) : result.finalOutput === undefined ? maxSteps(MAX_STEPS) : COMPLETED;
  } catch (error) {
    return endingOf(error, pipeline, scope);
  }
};
