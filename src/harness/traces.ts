/**
 * Traces of a run: one {@link StepTrace} per main-model call and one {@link ModelCallTrace} per
 * model call. `toJSON()` gives everything; `redacted()` keeps ids, statuses, sizes and SHA-256
 * fingerprints, never message text, arguments or results.
 */
import { sha256Hex } from '../core/fingerprint.js';
import type { ModelCallPurpose, ModelMessage, ModelToolCall, ModelUsage, ProviderMetadata } from './models/types.js';
import type { ToolOutcome } from './tools/agent-tool.js';

/** An image of a vision call as traces keep it: its label, media type, size and SHA-256 — never the bytes. */
export interface VisionImageTrace {
  readonly label: string;
  readonly mediaType: string;
  readonly byteLength: number;
  readonly sha256: string;
}

/** What went into a model call. */
export type ModelCallInputTrace =
  | { readonly messages: readonly ModelMessage[]; readonly tools: readonly string[] }
  | { readonly prompt: string; readonly images: readonly VisionImageTrace[] };

/** Everything recorded about one model call. */
export interface ModelCallTraceData {
  readonly callId: string;
  readonly runId: string;
  readonly stepId: string;
  readonly kind: 'main' | 'vision';
  /** Why the call was made: `main`, `render_review`, `asset_inspection` or `comparison`. */
  readonly purpose: ModelCallPurpose;
  /** Attempt number of a vision call (1, then 2… for retries). */
  readonly attempt?: number;
  readonly model: string;
  readonly startedAt: number;
  readonly elapsedMs: number;
  readonly status: 'ok' | 'error';
  readonly input: ModelCallInputTrace;
  readonly output?: {
    readonly text: string;
    readonly toolCalls: readonly ModelToolCall[];
    readonly finishReason?: string;
    /** The reasoning the provider exposed. */
    readonly reasoning?: string;
  };
  /** The provider's id of the response. */
  readonly responseId?: string;
  /** `true` or `false` only when the provider said so explicitly; otherwise `null`. */
  readonly cacheHit: boolean | null;
  readonly providerMetadata?: ProviderMetadata;
  readonly usage?: ModelUsage;
  readonly error?: { readonly code: string; readonly message: string };
}

/** What the response of a model call adds to its trace. */
export function responseTraceFields(response: {
  readonly responseId?: unknown;
  readonly cacheHit?: unknown;
  readonly providerMetadata?: unknown;
}): Pick<ModelCallTraceData, 'responseId' | 'cacheHit' | 'providerMetadata'> {
  const metadata = response.providerMetadata;
  return {
    ...(typeof response.responseId === 'string' ? { responseId: response.responseId } : {}),
    cacheHit: typeof response.cacheHit === 'boolean' ? response.cacheHit : null,
    ...(typeof metadata === 'object' && metadata !== null && !Array.isArray(metadata)
      ? { providerMetadata: metadata as ProviderMetadata }
      : {}),
  };
}

/**
 * An application's redaction of a step trace: what `StepTrace.redacted()` returns in place of the
 * default (ids, statuses, sizes and digests). It receives the whole trace and the default.
 */
export type TraceRedactor = (
  trace: StepTraceData,
  defaultRedaction: Readonly<Record<string, unknown>>,
) => Readonly<Record<string, unknown>>;

/** A model call's trace. */
export interface ModelCallTrace extends ModelCallTraceData {
  toJSON(): ModelCallTraceData;
  redacted(): Readonly<Record<string, unknown>>;
}

/** How a step ended. */
export type StepKind = 'tool_calls' | 'final' | 'protocol_error' | 'validation_error';

/** What the check of a final answer found. */
export interface ValidationTrace {
  readonly status: 'accepted' | 'protocol_error' | 'refused';
  readonly code?: string;
  readonly message?: string;
  readonly pointer?: string;
}

/** Everything recorded about one step (one main-model call and what followed from it). */
export interface StepTraceData {
  readonly runId: string;
  readonly step: number;
  readonly stepId: string;
  readonly kind: StepKind;
  readonly startedAt: number;
  readonly elapsedMs: number;
  readonly modelCall: ModelCallTraceData;
  readonly toolOutcomes: readonly ToolOutcome[];
  readonly validation?: ValidationTrace;
}

/** A step's trace. */
export interface StepTrace extends Omit<StepTraceData, 'modelCall'> {
  readonly modelCall: ModelCallTrace;
  toJSON(): StepTraceData;
  redacted(): Readonly<Record<string, unknown>>;
}

function digest(text: string): { bytes: number; sha256: string } {
  return { bytes: Buffer.byteLength(text, 'utf8'), sha256: sha256Hex(text) };
}

function redactMessage(message: ModelMessage): Readonly<Record<string, unknown>> {
  const base = { role: message.role, ...digest(message.content) };
  if (message.role === 'assistant') {
    return { ...base, toolCalls: (message.toolCalls ?? []).map((call) => ({ id: call.id, name: call.name })) };
  }
  if (message.role === 'tool') return { ...base, toolCallId: message.toolCallId, toolName: message.toolName };
  return base;
}

function redactModelCall(data: ModelCallTraceData): Readonly<Record<string, unknown>> {
  // Provider metadata can echo prompts or ids of the provider's account: only its keys are kept.
  const { input, output, error, providerMetadata, ...rest } = data;
  return {
    ...rest,
    input:
      'messages' in input
        ? { messages: input.messages.map(redactMessage), tools: input.tools }
        : {
            prompt: digest(input.prompt),
            // Labels can quote asset titles: only their digest is kept.
            images: input.images.map(({ label, ...image }) => ({ ...image, label: digest(label) })),
          },
    ...(output === undefined
      ? {}
      : {
          output: {
            text: digest(output.text),
            toolCalls: output.toolCalls.map((call) => ({ id: call.id, name: call.name })),
            ...(output.finishReason === undefined ? {} : { finishReason: output.finishReason }),
            ...(output.reasoning === undefined ? {} : { reasoning: digest(output.reasoning) }),
          },
        }),
    ...(providerMetadata === undefined ? {} : { providerMetadataKeys: Object.keys(providerMetadata).sort() }),
    ...(error === undefined ? {} : { error: { code: error.code } }),
  };
}

function redactOutcome(outcome: ToolOutcome): Readonly<Record<string, unknown>> {
  return {
    callId: outcome.callId,
    tool: outcome.tool,
    status: outcome.status,
    position: outcome.position,
    charged: outcome.charged,
    elapsedMs: outcome.elapsedMs,
    ...(outcome.evidenceRef === undefined ? {} : { evidenceRef: outcome.evidenceRef }),
    ...(outcome.error === undefined ? {} : { errorCode: outcome.error.code }),
  };
}

/** Freeze a model call's data into a trace. */
export function createModelCallTrace(data: ModelCallTraceData): ModelCallTrace {
  const frozen = Object.freeze({ ...data });
  return Object.freeze({
    ...frozen,
    toJSON: () => frozen,
    redacted: () => redactModelCall(frozen),
  });
}

/** Freeze a step's data into a trace; `redactor` replaces the default redaction. */
export function createStepTrace(
  data: Omit<StepTraceData, 'modelCall'> & { readonly modelCall: ModelCallTrace },
  redactor?: TraceRedactor,
): StepTrace {
  const { modelCall, ...rest } = data;
  const plain: StepTraceData = Object.freeze({
    ...rest,
    modelCall: modelCall.toJSON(),
    toolOutcomes: Object.freeze([...rest.toolOutcomes]),
  });
  const byDefault = (): Readonly<Record<string, unknown>> => ({
    ...rest,
    modelCall: modelCall.redacted(),
    toolOutcomes: plain.toolOutcomes.map(redactOutcome),
    ...(rest.validation === undefined
      ? {}
      : {
          validation: {
            status: rest.validation.status,
            ...(rest.validation.code === undefined ? {} : { code: rest.validation.code }),
          },
        }),
  });
  return Object.freeze({
    ...plain,
    modelCall,
    toJSON: () => plain,
    redacted: () => (redactor === undefined ? byDefault() : redactor(plain, byDefault())),
  });
}
