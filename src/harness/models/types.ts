/**
 * The model protocols the harness talks to: small, provider-neutral, JSON in and out.
 */
import type { JsonSchemaObject } from '../../boundary/field-spec.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';

/** A tool call the model asked for. */
export interface ModelToolCall {
  readonly id: string;
  readonly name: string;
  /** The parsed arguments; the raw text when they could not be parsed (then `inputError` says why). */
  readonly input: unknown;
  /** Set when the provider could not parse the arguments as JSON. */
  readonly inputError?: string;
}

/** The system message: the harness contract, then application guidance. */
export interface SystemMessage {
  readonly role: 'system';
  readonly content: string;
}

/** A user turn (history, the run prompt, or a harness correction). */
export interface UserMessage {
  readonly role: 'user';
  readonly content: string;
}

/** An assistant turn: text, and the tool calls it asked for. */
export interface AssistantMessage {
  readonly role: 'assistant';
  readonly content: string;
  readonly toolCalls?: readonly ModelToolCall[];
}

/** The result of one tool call, as the model sees it (canonical JSON text). */
export interface ToolResultMessage {
  readonly role: 'tool';
  readonly toolCallId: string;
  readonly toolName: string;
  readonly content: string;
  readonly isError: boolean;
  /** The run-scoped evidence ref of a succeeded call's full result (not sent to the provider). */
  readonly evidenceRef?: string;
}

/** One message of a model request. */
export type ModelMessage = SystemMessage | UserMessage | AssistantMessage | ToolResultMessage;

/** A tool as offered to the model. */
export interface ModelToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly inputSchema: JsonSchemaObject;
}

/** The shape the final answer must have, for providers that can enforce it. */
export interface ModelResponseFormat {
  readonly name: string;
  readonly schema: JsonSchemaObject;
}

/**
 * One call to the main model. Everything but the signals is deterministic: the same run inputs
 * give byte-identical requests (canonical JSON, tools ordered by name).
 */
export interface ModelRequest {
  readonly messages: readonly ModelMessage[];
  readonly tools: readonly ModelToolDefinition[];
  readonly responseFormat: ModelResponseFormat;
  readonly maxOutputTokens: number;
  /** The caller's signal, passed through unchanged. */
  readonly signal?: AbortSignal;
  /** Aborts when the run's time limit is reached (the harness has then already given up on the call). */
  readonly timeoutSignal?: AbortSignal;
}

/** Token counts of one call. `inputTokens` includes cached reads and cache writes. */
export interface ModelUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens?: number;
  readonly cacheWriteTokens?: number;
  /** Part of `outputTokens`. */
  readonly reasoningTokens?: number;
}

/** What the main model answered: tool calls, or a final answer in `text` (or `output`). */
export interface ModelResponse {
  readonly text: string;
  readonly toolCalls?: readonly ModelToolCall[];
  /** The final answer already parsed by the provider (structured output), when there is one. */
  readonly output?: JsonValue;
  readonly usage?: ModelUsage;
  /** `stop`, `length`, `tool-calls`, … as the provider says. */
  readonly finishReason?: string;
  /** The model that answered, when the provider says. */
  readonly model?: string;
}

/** The main model: plans, calls tools, and gives the final `{ message, patch }`. */
export interface MainModel {
  /** Name used for traces and budget pricing. */
  readonly id: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** An image or other file handed to the run, or rendered from a design. */
export interface Artifact {
  readonly id: string;
  /** IANA media type, e.g. `image/png`. */
  readonly mediaType: string;
  /** Raw bytes, base64 text, or an `https:` URL. */
  readonly data: Uint8Array | string;
  readonly name?: string;
}

/** One call to the vision model: a question about images. */
export interface VisionRequest {
  readonly prompt: string;
  readonly images: readonly Artifact[];
  readonly maxOutputTokens: number;
  readonly signal?: AbortSignal;
  readonly timeoutSignal?: AbortSignal;
}

/** The vision model's answer. */
export interface VisionResponse {
  readonly text: string;
  readonly usage?: ModelUsage;
  readonly model?: string;
}

/** A model that looks at images (input artifacts, or a rendered design) and answers in text. */
export interface VisionModel {
  readonly id: string;
  complete(request: VisionRequest): Promise<VisionResponse>;
}

/** Turns a design into an image the vision model can look at. */
export interface DesignRenderer {
  render(design: JsonValue, options: { readonly runId: string; readonly signal?: AbortSignal }): Promise<Artifact>;
}
