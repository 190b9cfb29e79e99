/**
 * Lifecycle events of a run: ids, status and elapsed time only — never arguments, results or
 * message text, so an event stream can go to any log.
 */
import type { ModelCallPurpose } from './models/types.js';
import type { ToolOutcomeStatus } from './tools/agent-tool.js';

/** Fields every event has. */
interface EventBase {
  readonly runId: string;
  /** Milliseconds since the epoch, from the harness's clock. */
  readonly at: number;
}

/** A run started. */
export interface RunStartedEvent extends EventBase {
  readonly type: 'run_started';
}

/** A run ended: with a proposal, with an error, or aborted by the caller. */
export interface RunFinishedEvent extends EventBase {
  readonly type: 'run_finished';
  readonly status: 'succeeded' | 'failed' | 'aborted';
  readonly elapsedMs: number;
  /** The error's stable `code` when the run failed. */
  readonly errorCode?: string;
}

/** A main- or vision-model call started. */
export interface ModelCallStartedEvent extends EventBase {
  readonly type: 'model_call_started';
  readonly kind: 'main' | 'vision';
  readonly purpose: ModelCallPurpose;
  readonly stepId: string;
  readonly callId: string;
}

/** A model call ended. */
export interface ModelCallFinishedEvent extends EventBase {
  readonly type: 'model_call_finished';
  readonly kind: 'main' | 'vision';
  readonly purpose: ModelCallPurpose;
  readonly stepId: string;
  readonly callId: string;
  readonly status: 'ok' | 'error';
  readonly elapsedMs: number;
}

/** A tool call started (before validation). */
export interface ToolCallStartedEvent extends EventBase {
  readonly type: 'tool_call_started';
  readonly stepId: string;
  readonly batchId: string;
  readonly callId: string;
  readonly tool: string;
  readonly position: number;
}

/** A tool call ended. */
export interface ToolCallFinishedEvent extends EventBase {
  readonly type: 'tool_call_finished';
  readonly stepId: string;
  readonly batchId: string;
  readonly callId: string;
  readonly tool: string;
  readonly position: number;
  readonly status: ToolOutcomeStatus;
  readonly elapsedMs: number;
}

/** A final answer is being checked. */
export interface ValidationStartedEvent extends EventBase {
  readonly type: 'validation_started';
  readonly stepId: string;
}

/** A final answer was checked: accepted, unusable (protocol error), or refused (validation). */
export interface ValidationFinishedEvent extends EventBase {
  readonly type: 'validation_finished';
  readonly stepId: string;
  readonly status: 'accepted' | 'protocol_error' | 'refused';
  readonly elapsedMs: number;
}

/** Every event a run emits. */
export type HarnessEvent =
  | RunStartedEvent
  | RunFinishedEvent
  | ModelCallStartedEvent
  | ModelCallFinishedEvent
  | ToolCallStartedEvent
  | ToolCallFinishedEvent
  | ValidationStartedEvent
  | ValidationFinishedEvent;

/** Distributes `Omit` over a union. */
export type EventInput = HarnessEvent extends infer E
  ? E extends HarnessEvent
    ? Omit<E, 'runId' | 'at'>
    : never
  : never;

/**
 * An emitter that stamps `runId` and `at`. A throwing `onEvent` hook is ignored: observers must
 * not change the outcome of a run.
 */
export function createEmitter(
  runId: string,
  now: () => number,
  onEvent: ((event: HarnessEvent) => void) | undefined,
): (event: EventInput) => void {
  if (onEvent === undefined) return () => undefined;
  return function emit(event) {
    try {
      onEvent(Object.freeze({ ...event, runId, at: now() }) as HarnessEvent);
    } catch {
      // Deliberately ignored: see above.
    }
  };
}
