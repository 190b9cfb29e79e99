/**
 * Tools the agent may call, what each call learns about its run, and what every call ends as.
 */
import type { JsonSchemaObject } from '../../boundary/field-spec.js';
import type { ApprovedAsset } from '../assets/asset-provider.js';
import type { JsonValue } from '../json-patch/apply-json-patch.js';
import type { RenderedArtifact } from '../models/types.js';
import type { InputArtifactDescriptor } from '../run/input-artifacts.js';

/** How a call ended. */
export const ToolOutcomeStatus = {
  /** The tool ran and its result was shown to the model. */
  succeeded: 'succeeded',
  /** The tool ran and threw, or returned something that cannot be shown (not JSON, too large). */
  failed: 'failed',
  /** The call never ran: unknown tool, invalid input, call budget spent, refused by middleware. */
  rejected: 'rejected',
  /** The tool did not finish within its time limit. */
  timed_out: 'timed_out',
  /** Middleware held the call back (for approval, or for later); it did not run. */
  deferred: 'deferred',
} as const;
/** How a call ended. */
export type ToolOutcomeStatus = (typeof ToolOutcomeStatus)[keyof typeof ToolOutcomeStatus];

/** What a failing tool does to the run: tell the model (`return_error`), or stop the run (`raise`). */
export const ToolFailureMode = { return_error: 'return_error', raise: 'raise' } as const;
/** What a failing tool does to the run. */
export type ToolFailureMode = (typeof ToolFailureMode)[keyof typeof ToolFailureMode];

/** What a tool call knows about its run. */
export interface ToolContext {
  readonly runId: string;
  /** Model call number (1-based) whose turn asked for this call. */
  readonly step: number;
  readonly stepId: string;
  /** Id of the batch of calls of that turn. */
  readonly batchId: string;
  /** Position in the batch (0-based) and the batch's size. */
  readonly position: number;
  readonly batchSize: number;
  readonly callId: string;
  /** The run's current design (frozen). */
  readonly design: JsonValue;
  readonly capabilities: readonly string[];
  /** Descriptors of the run's input artifacts (id, kind, metadata; never bytes). */
  readonly inputArtifacts: readonly InputArtifactDescriptor[];
  /**
   * The bytes of an input artifact (a copy). A lazy one is loaded on first use and kept for the
   * run. Throws a `ToolCallError` for an unknown id or a failed load (which a later call may retry).
   */
  loadInputArtifact(id: string): Promise<RenderedArtifact>;
  /** The run's successful renders by ref (`render:<n>`); each read gives a copy of the bytes. */
  readonly renderedArtifacts: Readonly<Record<string, RenderedArtifact>>;
  /** Assets found by the asset searches of this run so far, with their provenance. */
  readonly approvedAssets: readonly ApprovedAsset[];
  /** The caller's signal, unchanged. */
  readonly signal?: AbortSignal;
  /** Aborts when this call's or the run's time limit is reached. */
  readonly timeoutSignal: AbortSignal;
}

/** What `modelView` knows: the evidence ref under which the full result is kept for this run. */
export interface ModelViewContext {
  readonly ref: string;
  readonly callId: string;
}

/**
 * A tool of the agent.
 *
 * @example
 * const lookupColor: AgentTool<{ name: string }, { hex: string }> = {
 *   name: 'lookup_color',
 *   description: 'Hex code of a named brand color',
 *   inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
 *   parallelSafe: true,
 *   execute: async ({ name }) => ({ hex: palette[name] ?? '#000000' }),
 * };
 */
export interface AgentTool<Input = unknown, Output = unknown> {
  /** Letters, digits, `_` and `-`, starting with a letter; at most 64 characters. */
  readonly name: string;
  readonly description: string;
  /** JSON Schema of the input, an object schema; checked before anything is charged. */
  readonly inputSchema: JsonSchemaObject;
  /** The tool is offered only to runs that hold every one of these. */
  readonly requiredCapabilities?: readonly string[];
  /** Calls per run (default `limits.maxCallsPerTool`); charged only once a call passed validation. */
  readonly maxCallsPerRun?: number;
  /** Default `limits.toolTimeoutMs`. */
  readonly timeoutMs?: number;
  /** Bytes of what the model is shown (default `limits.maxToolResultBytes`). */
  readonly maxResultBytes?: number;
  /** Default `return_error`. */
  readonly failureMode?: ToolFailureMode;
  /** May run concurrently with the other calls of its turn (when `limits.parallelToolCalls` is on). */
  readonly parallelSafe?: boolean;
  /**
   * What the model is shown of a result (default: all of it). The full result stays retrievable
   * for this run through `retrieve_evidence` under `context.ref`.
   */
  modelView?(result: Output, context: ModelViewContext): unknown;
  execute(input: Input, context: ToolContext): Promise<Output> | Output;
}

/** Why a call did not succeed, for the model and for the operator. */
export interface ToolOutcomeError {
  /** `unknown_tool`, `invalid_input`, `call_budget_exhausted`, `too_many_calls`, `middleware_rejected`, `deferred`, `tool_error`, `timeout`, `result_not_json`, `result_too_large`. */
  readonly code: string;
  readonly message: string;
}

/** How one tool call ended. */
export interface ToolOutcome {
  readonly callId: string;
  readonly tool: string;
  readonly status: ToolOutcomeStatus;
  readonly step: number;
  readonly stepId: string;
  readonly batchId: string;
  readonly position: number;
  /** The input as the model sent it. */
  readonly input: unknown;
  /** The full result (succeeded calls). */
  readonly result?: JsonValue;
  /** What the model was shown (succeeded calls). */
  readonly view?: JsonValue;
  readonly evidenceRef?: string;
  readonly error?: ToolOutcomeError;
  /** Whether the call counted against the tool's per-run budget. */
  readonly charged: boolean;
  readonly elapsedMs: number;
}

/** The body of a tool: what a run binds to a built-in's compiled definition. */
export type ToolBody<Input = unknown, Output = unknown> = AgentTool<Input, Output>['execute'];

/** The body of a built-in before a run binds it. */
export function unbound(): never {
  throw new Error('A built-in tool was called outside a run');
}
