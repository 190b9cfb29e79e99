/**
 * `@mastra/core` objects, declared structurally: `createTool` tools, processors and the result of
 * `agent.generate()` fit these types as they are, and no Mastra type reaches our declarations.
 */
import type { GuardPipeline, GuardPipelineOptions } from '../pipeline.js';

/** A pipeline, or the options to build one with `createGuardPipeline`. */
export type MastraGuards = GuardPipeline | GuardPipelineOptions;

/** The thread and run of an agent run: the ledger scope and the fuse run. */
export interface MastraRunScope {
  readonly threadId?: string | undefined;
  readonly runId?: string | undefined;
}

/** A `RequestContext` of `@mastra/core/request-context`, as far as the guards read it. */
export interface MastraRequestContextLike {
  get(key: string): unknown;
}

/** How the scope of a run is found. */
export interface MastraScopeOptions {
  /**
   * The scope of a run, from the `RequestContext` of `agent.generate(…, { requestContext })`,
   * which Mastra hands to the processors and the tools of the run. Default: its `threadId` and
   * `runId` values when they are strings. Without a run id, each `RequestContext` (one per call
   * of `generate` or `stream` when the caller passes none) is a run of its own; a run delivered
   * again (a retry, a redispatch) needs the same `runId` to be recognised.
   */
  readonly scope?: (requestContext: MastraRequestContextLike | undefined) => MastraRunScope | undefined;
}

/** A Mastra tool (`createTool`, or an AI SDK tool): what the wrapper reads and replaces. */
export interface MastraToolLike {
  readonly description?: string | undefined;
  readonly execute?: ((input: never, context: never) => unknown) | undefined;
}

/** Options of {@link guardMastraTools}. */
export type GuardMastraToolsOptions = MastraScopeOptions;

/** Options of {@link hyphaeProcessor}. */
export interface HyphaeProcessorOptions extends MastraScopeOptions {
  /**
   * Repair the prompt of each model request (orphan tool results, unanswered tool calls,
   * duplicate ids) before it is sent. Default true.
   */
  readonly repairTranscript?: boolean;
  /** The model name the budget prices requests at. Default: the model's `modelId`. */
  readonly model?: string | undefined;
}

/** The verdict a run the guards stopped carries in its last step's `providerMetadata.hyphae`. */
export interface MastraStopVerdict {
  readonly stage: string;
  readonly code: string;
  readonly reason: string;
  readonly terminal: boolean;
}

/** One stream chunk of an answer Mastra replays in place of a model request. */
export interface MastraStopChunk {
  readonly type: string;
  readonly payload: unknown;
}

/**
 * The answer `processLLMRequest` gives in place of a refused model request (Mastra's
 * `CachedLLMStepResponse`): the refusal's note as a final text step, the verdict in its
 * `providerMetadata.hyphae`.
 */
export interface MastraStopResponse {
  readonly chunks: MastraStopChunk[];
}

/** The arguments of `processLLMRequest` the guards read; `M` is a provider-level prompt message. */
export interface MastraLLMRequestArgs<M = unknown> {
  readonly state?: object | undefined;
  readonly prompt: readonly M[];
  readonly model?: unknown;
  readonly requestContext?: MastraRequestContextLike | undefined;
}

/**
 * What `processLLMRequest` returns: nothing (the prompt is sent as it is), the repaired prompt, or
 * the answer that stands in for a refused request.
 */
export type MastraLLMRequestResult<M> =
  | { readonly prompt: M[] }
  | { readonly response: MastraStopResponse }
  | undefined;

/** The arguments of `processInputStep` the guards read. */
export interface MastraInputStepArgs {
  /** The processor's state of this call of `generate` or `stream`, shared by its steps. */
  readonly state?: object | undefined;
  readonly modelSettings?: { readonly maxOutputTokens?: number | undefined } | undefined;
  readonly requestContext?: MastraRequestContextLike | undefined;
}

/** The arguments of `processOutputStep` the guards read. */
export interface MastraOutputStepArgs<L> {
  readonly state?: object | undefined;
  readonly usage?: unknown;
  readonly requestContext?: MastraRequestContextLike | undefined;
  readonly messageList: L;
}

/**
 * A Mastra `Processor` with the hooks the guards use. Put it in both `inputProcessors` and
 * `outputProcessors` of the agent (`withGuards` does).
 */
export interface HyphaeProcessor {
  readonly id: 'hyphae';
  readonly name: string;
  processInputStep(args: MastraInputStepArgs): undefined;
  processLLMRequest<M>(args: MastraLLMRequestArgs<M>): MastraLLMRequestResult<M>;
  processOutputStep<L>(args: MastraOutputStepArgs<L>): L;
}

/** The agent settings `withGuards` reads and replaces; every other field is passed through. */
export interface MastraGuardedSettings {
  readonly tools?: Readonly<Record<string, MastraToolLike>> | undefined;
  readonly inputProcessors?: readonly unknown[] | undefined;
  readonly outputProcessors?: readonly unknown[] | undefined;
}

/** Options of {@link withGuards}. */
export type WithGuardsOptions = HyphaeProcessorOptions;
