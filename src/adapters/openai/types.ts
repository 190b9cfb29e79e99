/**
 * The `openai` package's Chat Completions, declared structurally: users pass their own client and
 * no SDK type reaches our declarations. Loose on purpose, so that the SDK's own objects fit.
 */

import type { GuardRun } from '../shared/run-types.js';
import type { GuardRefusal, ToolExecutionContext } from '../shared/types.js';

/** A tool call of an assistant message: a function call, or another kind (custom) we do not run. */
export interface OpenAiToolCall {
  readonly id: string;
  readonly type?: string;
  readonly function?: { readonly name: string; readonly arguments: string };
  readonly custom?: { readonly name: string; readonly input: string };
}

/** Any Chat Completions message (`system`, `developer`, `user`, `assistant`, `tool`). */
export interface OpenAiMessage {
  readonly role: string;
  readonly content?: unknown;
  readonly name?: string | undefined;
  readonly tool_calls?: readonly OpenAiToolCall[] | null | undefined;
  readonly tool_call_id?: string | undefined;
}

/** A function call as the loop echoes it into the transcript. */
export interface OpenAiFunctionToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * A message the loop writes itself: each is a valid `ChatCompletionMessageParam` of the `openai`
 * package, so the loop's transcript can be sent back as it is.
 */
export type OpenAiLoopMessage =
  | { role: 'assistant'; content: string | null; tool_calls: OpenAiFunctionToolCall[] }
  | { role: 'assistant'; content: string }
  | { role: 'tool'; tool_call_id: string; content: string }
  | { role: 'system'; content: string };

/** The assistant message of a completion. */
export interface OpenAiAssistantMessage {
  readonly role: string;
  readonly content?: string | null | undefined;
  readonly refusal?: string | null | undefined;
  readonly tool_calls?: readonly OpenAiToolCall[] | null | undefined;
}

/** What `chat.completions.create` resolves to (non-streaming). */
export interface OpenAiChatCompletion {
  readonly model?: string;
  readonly choices: readonly { readonly message: OpenAiAssistantMessage; readonly finish_reason?: string | null }[];
  readonly usage?: unknown;
}

/** One chunk of a streamed completion (`stream: true`). */
export interface OpenAiChatCompletionChunk {
  readonly choices: readonly {
    readonly delta?: {
      readonly content?: string | null | undefined;
      readonly refusal?: string | null | undefined;
      readonly tool_calls?:
        | readonly {
            readonly index: number;
            readonly id?: string | undefined;
            readonly type?: string | undefined;
            readonly function?: { readonly name?: string | undefined; readonly arguments?: string | undefined };
          }[]
        | undefined;
    };
    readonly finish_reason?: string | null;
  }[];
  readonly usage?: unknown;
}

/** The request body the loop sends. */
export interface OpenAiChatRequest {
  readonly model: string;
  readonly messages: readonly OpenAiMessage[];
  readonly tools?: readonly unknown[];
  readonly max_completion_tokens?: number | null;
  readonly parallel_tool_calls?: boolean;
  readonly stream?: boolean | null;
  readonly stream_options?: { readonly include_usage: boolean };
}

/**
 * An `OpenAI` client, or anything with its `chat.completions.create`. The loop sends an
 * {@link OpenAiChatRequest} and reads an {@link OpenAiChatCompletion}, or with `stream: true` an
 * async iterable of {@link OpenAiChatCompletionChunk}; the body is typed `never` so that the SDK's
 * overloaded `create` fits as it is.
 */
export interface OpenAiChatClient {
  readonly chat: {
    readonly completions: {
      create(body: never, options?: { signal?: AbortSignal }): PromiseLike<unknown>;
    };
  };
}

/** A tool body: parsed (and, with a schema, validated) arguments in, any result out. */
export type OpenAiToolExecutor = (args: never, context: ToolExecutionContext) => unknown;

/** Options of {@link runGuardedToolLoop}; `M` is the caller's message type (`ChatCompletionMessageParam`). */
export interface GuardedToolLoopOptions<M extends OpenAiMessage = OpenAiMessage> {
  readonly client: OpenAiChatClient;
  readonly model: string;
  /** The conversation so far; never mutated (a repaired copy is used). */
  readonly messages: readonly M[];
  /**
   * Stream each completion (`stream: true`, with usage in the last chunk): the guards run at the
   * same points, and `onChunk` sees every chunk as it comes. Default false.
   */
  readonly stream?: boolean;
  /** Every chunk of a streamed completion, as it arrives. */
  readonly onChunk?: (chunk: OpenAiChatCompletionChunk) => void;
  /** Tool definitions sent to the model (`{ type: 'function', function: { name, parameters } }`). */
  readonly tools: readonly unknown[];
  /** Tool bodies by name; a call to a name without one is refused. */
  readonly executors: Readonly<Record<string, OpenAiToolExecutor>>;
  /** The run's guards: `createGuardPipeline(...).forRun({ threadId, runId })`. */
  readonly guards: GuardRun;
  /** Most model requests. Default 10. */
  readonly maxTurns?: number;
  /** Most tool calls honoured per turn; later ones are dropped and the model is told. Default unlimited. */
  readonly maxParallelToolCalls?: number;
  /** Fuses whose every refusal ends the loop (e.g. `['loop', 'permission']`). */
  readonly terminalFuses?: readonly string[];
  /** Completion cap, sent as `max_completion_tokens` and reserved by the budget pre-flight. Default 4096. */
  readonly maxOutputTokens?: number;
  /** Other request fields (`temperature`, `tool_choice`, …); `stream` is the option above. */
  readonly request?: Readonly<Record<string, unknown>>;
  /** Repair the incoming transcript (orphan results, unanswered calls) before the first request. Default true. */
  readonly repairTranscript?: boolean;
  /** Turns a result into tool-message text. Default: strings as they are, anything else as JSON. */
  readonly formatResult?: (result: unknown, call: { readonly id: string; readonly name: string }) => string;
  /** Aborts the request in flight and a tool's ledger wait; the abort is re-thrown. */
  readonly signal?: AbortSignal;
}

/** Why the loop ended. */
export type GuardedToolLoopStop =
  /** The model answered without tool calls. */
  | 'completed'
  /** `maxTurns` requests were made. */
  | 'max_turns'
  /** The budget pre-flight refused the next request; it was not sent. */
  | 'model_call_refused'
  /** A terminal refusal stopped the run. */
  | 'stopped';

/** What {@link runGuardedToolLoop} returns. */
export interface GuardedToolLoopResult<M extends OpenAiMessage = OpenAiMessage> {
  readonly stopReason: GuardedToolLoopStop;
  /** The whole transcript: well-formed, one tool message per echoed call id; the caller's messages and the loop's own. */
  readonly messages: (M | OpenAiLoopMessage)[];
  /** The model's last answer without tool calls, when it gave one. */
  readonly finalMessage: OpenAiAssistantMessage | null;
  /** Model requests sent. */
  readonly turns: number;
  /** What stopped the run or refused the last request, for `stopped` and `model_call_refused`. */
  readonly refusal: GuardRefusal | null;
}
