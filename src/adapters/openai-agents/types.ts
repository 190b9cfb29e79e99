/**
 * `@openai/agents` objects, declared structurally: the SDK's function tools, guardrails and model
 * input filter fit these types as they are, and no SDK type reaches our declarations.
 */
import type { RepairTranscriptOptions } from '../../context/transcript/repair.js';
import type { GuardPipeline, GuardPipelineOptions } from '../pipeline.js';

/** A pipeline, or the options to build one with `createGuardPipeline`. */
export type AgentGuards = GuardPipeline | GuardPipelineOptions;

/** The thread and run of a call: the ledger scope and the fuse run. */
export interface AgentRunScope {
  readonly threadId?: string | undefined;
  readonly runId?: string | undefined;
}

/** How the scope of a run is found. */
export interface AgentScopeOptions {
  /**
   * The scope of a run, from the run's context value (`run(agent, input, { context })`). Default:
   * the context's `threadId` and `runId` when they are strings. Without a run id, each run (each
   * `RunContext`, which a `RunState` resumed in the same process keeps) gets its own; a run resumed
   * from a serialized `RunState` in another process needs a `runId` in its context to be
   * recognised.
   */
  readonly scope?: (context: unknown) => AgentRunScope | undefined;
}

/** Options of {@link guardAgentTool} and {@link guardAgentTools}. */
export interface GuardAgentToolOptions extends AgentScopeOptions {
  /**
   * Add the hyphae tool input guardrail, which halts the run (the SDK's tripwire) when a call comes
   * in after a terminal refusal stopped it. Default `true`; `false` only answers such calls with a
   * refusal.
   */
  readonly haltOnStop?: boolean;
}

/** Options of {@link hyphaeToolInputGuardrail}. */
export interface AgentGuardrailOptions extends AgentScopeOptions {
  /** `halt` (default) throws the SDK's tripwire; `reject` answers the call with the refusal. */
  readonly onStopped?: 'halt' | 'reject';
  /** The guardrail's name. Default `hyphae`. */
  readonly name?: string;
}

/** Options of {@link hyphaeCallModelInputFilter}. */
export interface AgentInputFilterOptions extends AgentScopeOptions {
  /** Passed to the repair. Default `{ unanswered: 'synthesize' }`. */
  readonly repair?: Omit<RepairTranscriptOptions, 'format'>;
}

/** A function tool (`tool({ … })`): what the wrapper reads and replaces. */
export interface AgentFunctionToolLike {
  readonly type: 'function';
  readonly name: string;
  invoke(runContext: never, input: string, details?: never): Promise<unknown>;
  readonly inputGuardrails?: readonly unknown[] | undefined;
}

/** Any agent tool; only function tools are wrapped. */
export interface AgentToolLike {
  readonly type: string;
  readonly name?: string | undefined;
}

/** The data a tool input guardrail receives. */
export interface AgentToolGuardrailData {
  /** The SDK's `RunContext`; its `context` is the run's context value. */
  readonly context: unknown;
  readonly toolCall: { readonly callId?: string | undefined; readonly name?: string; readonly arguments?: string };
}

/** What a tool input guardrail answers. */
export interface AgentToolGuardrailOutput {
  readonly behavior: { type: 'allow' } | { type: 'rejectContent'; message: string } | { type: 'throwException' };
  readonly outputInfo?: unknown;
}

/** A tool input guardrail definition, for a tool's `inputGuardrails`. */
export interface AgentToolInputGuardrail {
  readonly type: 'tool_input';
  readonly name: string;
  run(data: AgentToolGuardrailData): Promise<AgentToolGuardrailOutput>;
}

/** The model input a `callModelInputFilter` receives and returns. */
export interface AgentModelInputData<I> {
  input: I[];
  instructions?: string;
}

/** A `callModelInputFilter` for `run(agent, input, { callModelInputFilter })` or a `Runner`. */
export type AgentCallModelInputFilter = <I>(args: {
  readonly modelData: AgentModelInputData<I>;
  readonly context?: unknown;
}) => AgentModelInputData<I>;

/** What the model guard reads of a `ModelRequest`. */
export interface AgentModelRequestLike {
  readonly systemInstructions?: string | undefined;
  readonly input: string | readonly unknown[];
  readonly modelSettings?: { readonly maxTokens?: number | undefined } | undefined;
  readonly tools?: readonly unknown[] | undefined;
  readonly handoffs?: readonly unknown[] | undefined;
  readonly outputType?: unknown;
  readonly signal?: AbortSignal | undefined;
}

/** A `Model` of `@openai/agents`: what {@link guardModel} wraps. */
export interface AgentModelLike {
  readonly supportsPromptModelSelection?: boolean | undefined;
  getResponse(request: never): Promise<unknown>;
  getStreamedResponse(request: never): AsyncIterable<unknown>;
  getRetryAdvice?(args: never): unknown;
}

/** The guarded copy of a model: the same `Model` methods, none of its other members. */
export type GuardedAgentModel<M extends AgentModelLike> = Pick<
  M,
  Extract<keyof M, 'getResponse' | 'getStreamedResponse' | 'getRetryAdvice' | 'supportsPromptModelSelection'>
>;

/** A `ModelProvider` of `@openai/agents` (`Runner({ modelProvider })`). */
export interface AgentModelProviderLike {
  getModel(modelName?: string): Promise<AgentModelLike> | AgentModelLike;
}

/** The guarded copy of a provider: each model it gives is guarded. */
export interface GuardedAgentModelProvider<P extends AgentModelProviderLike> {
  getModel(modelName?: string): Promise<GuardedAgentModel<Awaited<ReturnType<P['getModel']>>>>;
}

/** Options of {@link guardModel} and {@link guardModelProvider}. */
export interface GuardAgentModelOptions {
  /**
   * The run whose budget and stop latch gate each call. Pass the `runId` (and `threadId`) the
   * run's context names (`run(agent, input, { context: { threadId, runId } })`): the guarded tools
   * then share the run, so a run their fuses stopped makes no further model call.
   */
  readonly runId: string;
  readonly threadId?: string | undefined;
  /**
   * The model name the budget prices calls at. Default: the name the provider was asked for
   * (`guardModelProvider`), else `unknown`.
   */
  readonly model?: string | undefined;
}
