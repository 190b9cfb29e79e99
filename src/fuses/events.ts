/**
 * The fuse box's event log: one JSON-serialisable event per decision or recorded fact, carrying the
 * facts the decision was made on, so that a replay into fresh fuse state reproduces every verdict.
 */
import { type ValueOf, type Vocabulary, vocabulary } from '../core/vocabulary.js';
import type { BudgetBooking, ModelReservation } from './budget.js';
import type { ModelCallRequest } from './model-call.js';
import type { UsageReading } from './usage.js';
import type { FuseVerdict } from './verdict.js';

const FUSE_EVENT_TYPES = [
  'tool_call',
  'tool_result',
  'turn',
  'model_call',
  'model_usage',
  'release',
  'reset',
  'end',
] as const;
/** Kinds of fuse-box events. */
export const FuseEventType: Vocabulary<typeof FUSE_EVENT_TYPES> = vocabulary(FUSE_EVENT_TYPES);
/** Kinds of fuse-box events. */
export type FuseEventType = ValueOf<typeof FuseEventType>;

/** A tool call as logged: canonical arguments, or why they have none. */
export interface ToolCallRecord {
  readonly id?: string;
  readonly name: string;
  /** RFC 8785 canonical JSON of the arguments; `null` when they have no JSON form. */
  readonly argsJson: string | null;
  /** Why the call could not be read (a missing name, arguments that are not JSON). */
  readonly error?: string;
}

interface EventBase {
  readonly runId: string;
  /** Milliseconds since the epoch, from the box's clock (copied as is by a replay). */
  readonly at: number;
}

/** A tool call was checked. */
export interface ToolCallEvent extends EventBase {
  readonly type: 'tool_call';
  readonly call: ToolCallRecord;
  readonly verdict: FuseVerdict;
}

/** A tool call's result was recorded (as a fingerprint; `null` when it had no JSON form). */
export interface ToolResultEvent extends EventBase {
  readonly type: 'tool_result';
  readonly call: ToolCallRecord;
  readonly resultFingerprint: string | null;
  /** False when the call failed; a log written without it reads as `true`. */
  readonly ok?: boolean;
  readonly verdict: FuseVerdict;
}

/** A model turn began: the tool calls after it are that turn's (a model call begins one too). */
export interface TurnEvent extends EventBase {
  readonly type: 'turn';
  /** The id the caller gave the turn (the model message's id), or `null`. */
  readonly turnId: string | null;
}

/** A model call was checked; `request` holds the measured facts (`null` without a budget fuse). */
export interface ModelCallEvent extends EventBase {
  readonly type: 'model_call';
  readonly model: string;
  /** Present (`false`) when the check began no turn (a pre-flight taken while tool calls still run). */
  readonly beginTurn?: false;
  readonly request: ModelCallRequest | null;
  readonly verdict: FuseVerdict;
  readonly reservation: ModelReservation | null;
}

/** A model call's usage was booked. */
export interface ModelUsageEvent extends EventBase {
  readonly type: 'model_usage';
  readonly reading: UsageReading;
  readonly model: string | null;
  readonly reservationId: string | null;
  readonly booking: BudgetBooking;
}

/** A reservation was released without usage (the call was not made). */
export interface ReleaseEvent extends EventBase {
  readonly type: 'release';
  readonly reservationId: string;
  readonly released: boolean;
}

/** The run was reset, or ended. */
export interface RunLifecycleEvent extends EventBase {
  readonly type: 'reset' | 'end';
}

/** One entry of a fuse box's log. */
export type FuseEvent =
  | ToolCallEvent
  | ToolResultEvent
  | TurnEvent
  | ModelCallEvent
  | ModelUsageEvent
  | ReleaseEvent
  | RunLifecycleEvent;
