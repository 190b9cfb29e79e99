/**
 * The `@anthropic-ai/sdk` shapes the adapter touches, declared structurally: users pass their own
 * client and tools, and no SDK type reaches our declarations. Loose on purpose, so that the SDK's
 * own objects fit.
 */

/** What a tool runner passes to a runnable tool's `run`: the `tool_use` block it answers, and the run's signal. */
export interface AnthropicToolRunContext {
  readonly toolUse?: { readonly id?: string | undefined; readonly name?: string | undefined } | undefined;
  readonly signal?: AbortSignal | null | undefined;
}

/** A runnable tool (`betaZodTool`, `betaTool`, or a hand-written one): a definition with a `run`. */
export interface AnthropicRunnableToolLike {
  readonly name: string;
  readonly run: (args: never, context?: never) => unknown;
  readonly parse?: ((input: unknown) => unknown) | undefined;
}

/** Any entry of a runner's `tools`: a runnable tool, a plain definition, a server tool or a toolset. */
export type AnthropicToolLike = object;

/** A request as the client's middleware sees it (the SDK's `APIRequest`). */
export interface AnthropicApiRequest {
  readonly url: string;
  readonly method?: string | undefined;
  readonly body?: unknown;
  readonly headers: Headers;
}

/**
 * A client middleware in the shape of the SDK's `Middleware`: `new Anthropic({ middleware: [m] })`.
 * `next` is typed `never` so that the SDK's own fits as it is.
 */
export type AnthropicMiddleware = (
  request: AnthropicApiRequest,
  next: (request: never) => Promise<Response>,
) => Promise<Response>;

/** An `Anthropic` client, or anything with its `withOptions({ middleware })` and `middleware`. */
export interface AnthropicClientLike {
  readonly middleware?: readonly unknown[] | undefined;
  withOptions(options: never): unknown;
}

/** The `tool_result` block the adapter answers a `tool_use` with. */
export interface AnthropicToolResultBlock {
  type: 'tool_result';
  tool_use_id: string;
  /**
   * The result as text, or the content blocks the tool returned as they are (typed `never[]`, so
   * the message fits the SDK's `MessageParam` and `BetaMessageParam` both).
   */
  content: string | never[];
  is_error?: true;
}

/** The user message that answers every `tool_use` of an assistant message. */
export interface AnthropicToolResultMessage {
  role: 'user';
  content: AnthropicToolResultBlock[];
}

/** Options of `guardAnthropicClient` and `anthropicGuardMiddleware`. */
export interface AnthropicGuardOptions {
  /**
   * Repair the history of each request before it is sent (an orphan `tool_result`, a `tool_use`
   * without its result, a duplicate id: each is a 400 at the API). Default true.
   */
  readonly repairTranscript?: boolean;
}
