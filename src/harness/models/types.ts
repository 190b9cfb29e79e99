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
  /** The reasoning text the provider exposed, when it exposes any. */
  readonly reasoning?: string;
  /** The provider's id of this response. */
  readonly responseId?: string;
  /**
   * Whether the provider served the prompt from its cache — only when the provider says so
   * explicitly. Turning cache controls on is not evidence of a hit.
   */
  readonly cacheHit?: boolean;
  /** Provider-specific metadata of the response (JSON), kept in traces and the run result. */
  readonly providerMetadata?: ProviderMetadata;
}

/** Provider-specific metadata of a model response, as JSON. */
export type ProviderMetadata = Readonly<Record<string, JsonValue>>;

/** The main model: plans, calls tools, and gives the final `{ message, patch }`. */
export interface MainModel {
  /** Name used for traces and budget pricing. */
  readonly id: string;
  complete(request: ModelRequest): Promise<ModelResponse>;
}

/** JSON metadata of an artifact: a plain object. */
export type ArtifactMetadata = Readonly<Record<string, JsonValue>>;

/**
 * Bytes to look at: a rendered design, an asset preview or an input artifact. The bytes never
 * enter tool outcomes, traces or events; only their size and SHA-256 do.
 */
export interface RenderedArtifact {
  readonly bytes: Uint8Array;
  /** IANA media type, e.g. `image/png`. */
  readonly mediaType: string;
  /** JSON describing the bytes (size, page, renderer version…); default `{}`. */
  readonly metadata?: ArtifactMetadata;
}

/** Why a model call was made; usage and traces are kept per purpose. */
export const ModelCallPurpose = {
  /** The main model's planning and final answer. */
  main: 'main',
  /** A vision review of one rendered candidate. */
  render_review: 'render_review',
  /** A vision look at an asset preview or an input artifact. */
  asset_inspection: 'asset_inspection',
  /** A vision review comparing a render with the render it was based on. */
  comparison: 'comparison',
} as const;
/** Why a model call was made. */
export type ModelCallPurpose = (typeof ModelCallPurpose)[keyof typeof ModelCallPurpose];

/** The purposes of vision calls. */
export type VisionPurpose = Exclude<ModelCallPurpose, 'main'>;

/** One image of a vision request, with the label the prompt refers to it by. */
export interface VisionImage {
  readonly label: string;
  readonly artifact: RenderedArtifact;
}

/**
 * One call to the vision model: questions about one or more labelled images, sent in this
 * order. With `outputSchema` (the application's JSON Schema), the answer must be a JSON value
 * valid against it; the harness checks it whatever the adapter did.
 */
export interface VisionReviewRequest {
  readonly purpose: VisionPurpose;
  /** The full prompt: what the images are (by label), then the questions. */
  readonly prompt: string;
  /** The questions asked, in order (also part of `prompt`). */
  readonly questions: readonly string[];
  readonly images: readonly VisionImage[];
  /** JSON Schema 2020-12 of a structured review (application-owned). */
  readonly outputSchema?: JsonSchemaObject;
  readonly maxOutputTokens: number;
  /** The caller's signal, unchanged. */
  readonly signal?: AbortSignal;
  /** Aborts at the vision call's or the run's time limit. */
  readonly timeoutSignal?: AbortSignal;
}

/** The vision model's answer: text, and the structured review when one was asked for. */
export interface VisionResponse {
  readonly text: string;
  /** The structured review already parsed (otherwise the harness parses `text` as JSON). */
  readonly output?: JsonValue;
  readonly usage?: ModelUsage;
  readonly model?: string;
  /** As for {@link ModelResponse}. */
  readonly reasoning?: string;
  readonly responseId?: string;
  readonly cacheHit?: boolean;
  readonly providerMetadata?: ProviderMetadata;
}

/** A model that looks at images (renders, asset previews, input artifacts) and answers. */
export interface VisionModel {
  readonly id: string;
  complete(request: VisionReviewRequest): Promise<VisionResponse>;
}
