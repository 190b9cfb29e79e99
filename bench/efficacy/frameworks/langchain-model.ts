/**
 * What the LangChain `createAgent` and LangGraph runners share: a scripted chat model (with the
 * provider's transcript check), the scenario's tools and messages, and how a run ended.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import { stoppedVerdictOf } from '../../../src/adapters/langchain.js';
import {
  COMPLETED,
  createScript,
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

/** LangGraph's default `recursionLimit`, which `createAgent` and a compiled `StateGraph` both keep. */
export const RECURSION_LIMIT = 25;

/** The provider's refusal of a malformed prompt. */
class ProviderError extends Error {
  readonly status = 400;
}

/** A chat model answering from the script, with the provider's check on tool calls and results. */
export class ScriptedChatModel extends BaseChatModel {
  /** The name the budget prices. */
  readonly model = 'gpt-4o-mini';
  readonly #script: Script;
  readonly #meter: Meter;

  constructor(scenario: Scenario, meter: Meter) {
    super({});
    this.#script = createScript(scenario.script, meter);
    this.#meter = meter;
  }

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(): this {
    return this;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.#meter.modelCalls++;
    const problem = transcriptError(
      messages.flatMap((message): TranscriptEvent[] => {
        if (ToolMessage.isInstance(message)) return [{ result: message.tool_call_id }];
        const calls = AIMessage.isInstance(message) ? (message.tool_calls ?? []) : [];
        return calls.length > 0 ? calls.map((call) => ({ call: call.id ?? '' })) : [{ message: true }];
      }),
    );
    if (problem !== null) throw rejectPrompt(this.#meter, (text) => new ProviderError(text), problem);
    const turn = this.#script.next();
    const text = 'text' in turn ? turn.text : '';
    const message = new AIMessage({
      content: text,
      tool_calls:
        'calls' in turn ? turn.calls.map((call) => ({ id: call.id, name: call.name, args: { ...call.args } })) : [],
    });
    // The core types narrow `usage_metadata` away under exactOptionalPropertyTypes; it is a real field.
    Object.assign(message, {
      usage_metadata: {
        input_tokens: turn.usage.input,
        output_tokens: turn.usage.output,
        total_tokens: totalOf(turn.usage),
      },
    });
    return { generations: [{ text, message }] };
  }
}

/** The scenario's tools as LangChain tools over the provider. */
export function toolsOf(scenario: Scenario, provider: FakeProvider): DynamicStructuredTool[] {
  return scenario.tools.map(
    (name) =>
      tool(async (args: unknown) => JSON.stringify(await provider.bodies[name](args)), {
        name,
        description: toolDescriptions[name],
        schema: toolSchemas[name],
      }) as unknown as DynamicStructuredTool,
  );
}

/** The history and the prompt; a redelivery carries the same messages, ids included. */
export function messagesOf(scenario: Scenario, runId: string): BaseMessage[] {
  const history = scenario.history.map((item, index) => {
    if (item.role === 'user') return new HumanMessage({ id: `${runId}-h${index}`, content: item.text });
    if (item.role === 'assistant') {
      return new AIMessage({
        id: `${runId}-h${index}`,
        content: '',
        tool_calls: item.calls.map((call) => ({ id: call.id, name: call.name, args: { ...call.args } })),
      });
    }
    return new ToolMessage({
      id: `${runId}-h${index}`,
      tool_call_id: item.callId,
      name: item.name,
      content: item.result,
    });
  });
  return [...history, new HumanMessage({ id: `${runId}-prompt`, content: scenario.prompt })];
}

/** How a run ended, from its last message: the guards' verdict, a final answer, or a cut-off. */
export function endingOf(messages: readonly BaseMessage[]): string {
  const last = messages.at(-1);
  const verdict = stoppedVerdictOf(last);
  if (verdict !== undefined) return stopEnding(verdict);
  return AIMessage.isInstance(last) && (last.tool_calls ?? []).length === 0 ? COMPLETED : 'ended mid-turn';
}
