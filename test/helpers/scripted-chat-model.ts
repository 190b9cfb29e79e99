/**
 * A LangChain chat model that answers from a script and records every prompt it was sent: no
 * network, deterministic tool calls and usage.
 */
import { BaseChatModel } from '@langchain/core/language_models/chat_models';
import { AIMessage, type BaseMessage } from '@langchain/core/messages';
import type { ChatResult } from '@langchain/core/outputs';

/** One scripted turn: tool calls (with ids), or a text answer. */
export interface ScriptedTurn {
  readonly text?: string;
  readonly calls?: readonly { readonly id: string; readonly name: string; readonly args?: Record<string, unknown> }[];
  /** Usage reported with the answer (default 10 in, 5 out). */
  readonly usage?: { readonly input: number; readonly output: number };
}

export class ScriptedChatModel extends BaseChatModel {
  /** The name the budget fuse prices. */
  readonly model: string;
  readonly prompts: BaseMessage[][] = [];
  readonly #turns: ScriptedTurn[];

  constructor(turns: readonly ScriptedTurn[], model = 'scripted-model') {
    super({});
    this.#turns = [...turns];
    this.model = model;
  }

  _llmType(): string {
    return 'scripted';
  }

  override bindTools(): this {
    return this;
  }

  /** Turns not yet answered. */
  get remaining(): number {
    return this.#turns.length;
  }

  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.prompts.push([...messages]);
    const turn = this.#turns.shift() ?? { text: 'script exhausted' };
    const usage = turn.usage ?? { input: 10, output: 5 };
    const message = new AIMessage({
      content: turn.text ?? '',
      tool_calls: (turn.calls ?? []).map((call) => ({
        id: call.id,
        name: call.name,
        args: call.args ?? {},
        type: 'tool_call' as const,
      })),
    });
    // The core types narrow `usage_metadata` away under exactOptionalPropertyTypes; it is a real field.
    Object.assign(message, {
      usage_metadata: {
        input_tokens: usage.input,
        output_tokens: usage.output,
        total_tokens: usage.input + usage.output,
      },
    });
    return { generations: [{ text: turn.text ?? '', message }] };
  }
}
