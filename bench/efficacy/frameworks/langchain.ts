/**
 * LangChain v1 `createAgent` with a scripted chat model: stock has LangChain's own
 * `modelCallLimitMiddleware` as its step limit; guarded adds `hyphaeMiddleware` after it.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';
import { type DynamicStructuredTool, tool } from '@langchain/core/tools';
import { createAgent, modelCallLimitMiddleware } from 'langchain';
import { type HyphaeMiddleware, hyphaeMiddleware } from '../../../src/adapters/langchain.js';
import type { GuardRefusal } from '../../../src/adapters/pipeline.js';
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

/** The provider's refusal of a malformed prompt. */
class ProviderError extends Error {
  readonly status = 400;
}

/** A chat model answering from the script, with the provider's check on tool results. */
class ScriptedChatModel extends BaseChatModel {
  /** The name the budget prices. */
  readonly model = 'gpt-4o-mini';
  readonly #script: Script;
  readonly #meter: Meter;

  constructor(script: Script, meter: Meter) {
    super({});
    this.#script = script;
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
    const orphan = firstOrphan(
      messages.flatMap((message): TranscriptEvent[] => {
        if (ToolMessage.isInstance(message)) return [{ result: message.tool_call_id }];
        if (AIMessage.isInstance(message)) return (message.tool_calls ?? []).map((call) => ({ call: call.id ?? '' }));
        return [];
      }),
    );
    if (orphan !== null) throw new ProviderError(orphanMessage(orphan));
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

function toolsOf(scenario: Scenario, provider: FakeProvider): DynamicStructuredTool[] {
  return scenario.tools.map(
    (name) =>
      tool(async (args: unknown) => JSON.stringify(await provider.bodies[name](args)), {
        name,
        description: toolDescriptions[name],
        schema: toolSchemas[name],
      }) as unknown as DynamicStructuredTool,
  );
}

function messagesOf(scenario: Scenario, runId: string): BaseMessage[] {
  const history = scenario.history.map((item) =>
    item.role === 'user'
      ? new HumanMessage(item.text)
      : new ToolMessage({ tool_call_id: item.callId, name: item.name, content: item.result }),
  );
  // A redelivery carries the same message, id included: the guarded run's id is the prompt's.
  return [...history, new HumanMessage({ id: `${runId}-prompt`, content: scenario.prompt })];
}

/** One delivery with `createAgent`, stock or guarded. */
export const deliverLangChain: Deliver = async ({ scenario, provider, meter, pipeline, scope }) => {
  const model = new ScriptedChatModel(createScript(scenario.script, meter), meter);
  let stoppedBy: GuardRefusal | null = null;
  // LangChain declares this middleware with types that do not check under exactOptionalPropertyTypes.
  const limit = modelCallLimitMiddleware({
    runLimit: MAX_STEPS,
    exitBehavior: 'end',
  } as never) as unknown as HyphaeMiddleware;
  const guard =
    pipeline === undefined
      ? []
      : [
          hyphaeMiddleware(pipeline, {
            stopMessage: (refusal) => {
              stoppedBy ??= refusal;
              return refusal.message;
            },
          }),
        ];
  const agent = createAgent({ model, tools: toolsOf(scenario, provider), middleware: [limit, ...guard] });
  const result = await agent.invoke(
    { messages: messagesOf(scenario, scope.runId) },
    // Middleware hooks are graph steps too: the limit on model calls is the middleware's, not this.
    { recursionLimit: 200, configurable: { thread_id: scope.threadId } },
  );
  if (stoppedBy !== null) return stopEnding(stoppedBy);
  const last = result.messages.at(-1);
  const limited = AIMessage.isInstance(last) && String(last.content).startsWith('Model call limits exceeded');
  return limited ? maxSteps(MAX_STEPS) : COMPLETED;
};
