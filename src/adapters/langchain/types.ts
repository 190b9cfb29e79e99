/**
 * LangChain and LangGraph objects, declared structurally: the adapter reads and builds them at run
 * time, and no `langchain` or `@langchain/*` type reaches our declarations.
 */
import type { RepairTranscriptOptions } from '../../context/transcript/repair.js';
import type { GuardPipeline, GuardPipelineOptions } from '../pipeline.js';
import type { GuardRefusal } from '../shared/types.js';

/** A pipeline, or the options to build one with `createGuardPipeline`. */
export type LangChainGuards = GuardPipeline | GuardPipelineOptions;

/** A tool call on an AI message (`AIMessage.tool_calls[n]`). */
export interface LangChainToolCall {
  readonly id?: string | undefined;
  readonly name: string;
  readonly args?: unknown;
  readonly type?: string | undefined;
}

/** The parts of a LangChain message (`BaseMessage`) the adapter reads. */
export interface LangChainMessage {
  readonly id?: string | undefined;
  readonly content?: unknown;
  readonly type?: string | undefined;
  readonly name?: string | undefined;
  readonly tool_calls?: readonly LangChainToolCall[] | undefined;
  readonly tool_call_id?: string | undefined;
  readonly status?: string | undefined;
  readonly artifact?: unknown;
  getType?(): string;
}

/** What a custom run id is derived from. */
export interface LangChainRunContext {
  /** `configurable.thread_id`, when the graph runs with a checkpointer. */
  readonly threadId: string | undefined;
  /** The graph state's messages. */
  readonly messages: readonly unknown[];
  /** The run's `configurable` (read only). */
  readonly configurable: Readonly<Record<string, unknown>> | undefined;
}

/** Options shared by {@link hyphaeMiddleware} and {@link guardToolNode}. */
export interface LangChainScopeOptions {
  /**
   * The run id of the ledger scope and the fuse run. It must stay the same when LangGraph resumes
   * the run (after an interrupt or a failure), or a redispatched call is not recognised. Default:
   * the id of the last human message (LangGraph gives every message an id and checkpoints it),
   * else the thread id, else `default`.
   */
  readonly runId?: (context: LangChainRunContext) => string | undefined;
}

/** Options of {@link hyphaeMiddleware}. */
export interface HyphaeMiddlewareOptions extends LangChainScopeOptions {
  /** The middleware's name (LangChain requires unique names). Default `HyphaeMiddleware`. */
  readonly name?: string;
  /** Repair the transcript before every model call; `false` turns it off. Default `{ unanswered: 'synthesize' }`. */
  readonly repairTranscript?: boolean | Omit<RepairTranscriptOptions, 'format'>;
  /** The model name the budget pre-flight prices. Default: the chat model's `model` or `modelName`. */
  readonly model?: string;
  /** The completion cap the budget pre-flight reserves. Default: the chat model's `maxTokens`, else the pipeline's. */
  readonly maxOutputTokens?: number;
  /** The final AI message of a run the guards stopped. Default: the refusal's note. */
  readonly stopMessage?: (refusal: GuardRefusal) => string;
}

/**
 * The middleware `createAgent` takes. Its two hooks (`wrapModelCall`, `wrapToolCall`, which add no
 * graph step) are there at run time but left out of the type, so
 * that no LangChain type leaks into ours; it fits `createAgent({ middleware: [...] })` as it is.
 */
export interface HyphaeMiddleware {
  readonly name: string;
  /** The pipeline every call goes through (its ledger and fuse box). */
  readonly pipeline: GuardPipeline;
}

/** A LangChain tool (`StructuredTool`, `DynamicTool`, `tool(...)`): a name and `invoke`. */
export interface LangChainToolLike {
  readonly name: string;
  invoke(input: never, config?: never): Promise<unknown>;
}

/** A LangGraph `ToolNode` (from `@langchain/langgraph/prebuilt`): its tools and options. */
export interface LangGraphToolNodeLike {
  readonly tools: readonly LangChainToolLike[];
  readonly name?: string | undefined;
  readonly tags?: readonly string[] | undefined;
  readonly handleToolErrors?: unknown;
}

/** Options of {@link guardToolNode} and {@link guardTools}. */
export type GuardToolNodeOptions = LangChainScopeOptions;

/**
 * Options of a routing {@link guardToolNode}: the node answers with a LangGraph `Command` whose
 * `goto` is `next` after an ordinary tool step and `onBlock` after a step that left the run stopped.
 * The node must then have no static outgoing edge (add it with `{ ends: [next, onBlock] }`).
 */
export interface GuardToolNodeRouting extends LangChainScopeOptions {
  /** Where a blocked turn goes: `'__end__'` (LangGraph's `END`) or a node of the graph. */
  readonly onBlock: string;
  /** Where an ordinary tool step goes (usually the model node). */
  readonly next: string;
  /** The final AI message when `onBlock` is the end. Default: the refusal's note. */
  readonly stopMessage?: (refusal: GuardRefusal) => string;
}

/** Options of {@link guardModelNode}. */
export interface GuardModelNodeOptions extends LangChainScopeOptions {
  /** The model name the budget pre-flight prices. Default `unknown` (the budget's default price). */
  readonly model?: string;
  /** The completion cap the budget pre-flight reserves. Default: the pipeline's. */
  readonly maxOutputTokens?: number;
  /** Tool definitions sent with the prompt, for the pre-flight estimate. */
  readonly tools?: unknown;
  /** Repair the messages before the node sees them; `false` turns it off. Default `{ unanswered: 'synthesize' }`. */
  readonly repairTranscript?: boolean | Omit<RepairTranscriptOptions, 'format'>;
  /** The final AI message of a run the guards stopped. Default: the refusal's note. */
  readonly stopMessage?: (refusal: GuardRefusal) => string;
}

/** A graph node function: what `guardToolNode(tools, guards)` returns for `addNode`. */
export type GuardedToolNodeFunction = (state: unknown, config?: unknown) => Promise<unknown>;
