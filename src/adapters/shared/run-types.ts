/**
 * The types of one guarded run: which run it is, the model-call check and its answer, and the
 * run's handle every adapter drives. Apart from the pipeline so the run's implementation and the
 * pipeline that creates it share them without importing each other.
 */
import type { RepairTranscriptOptions } from '../../context/transcript/repair.js';
import type { BudgetBooking, ModelReservation } from '../../fuses/budget.js';
import type { LedgerScope } from '../../records/transition-record.js';
import type { ExecuteToolCallOptions, GuardRefusal, ToolCallInput, ToolCallOutcome, ToolExecutor } from './types.js';

/** Which run a {@link GuardRun} guards: the ledger scope and the fuse run. */
export interface GuardRunOptions {
  readonly threadId?: string;
  readonly runId: string;
  /** A graph node, when the framework has one. */
  readonly node?: string;
}

/** A model call about to be made, in any provider's message shape. */
export interface ModelCallCheck {
  readonly model: string;
  readonly messages: readonly unknown[];
  readonly tools?: unknown;
  /** The completion cap; default the pipeline's `defaultMaxOutputTokens`. */
  readonly maxOutputTokens?: number | undefined;
  /** Prompt tokens known without counting (the previous call's booked input and output), added to `messages`. */
  readonly knownPromptTokens?: number | undefined;
  /** `false`: a pre-flight taken while the turn's tool calls may still run, which begins no turn. */
  readonly beginTurn?: boolean | undefined;
}

/** The answer of a budget pre-flight: an allowed call holds a reservation until booked or released. */
export type ModelCallGate =
  | { readonly status: 'allowed'; readonly reservation: ModelReservation | null; readonly maxOutputTokens: number }
  | { readonly status: 'refused'; readonly refusal: GuardRefusal };

/** One run's guards: tool calls, model calls and the stop latch. */
export interface GuardRun {
  readonly threadId: string | undefined;
  readonly runId: string;
  /** The ledger scope of every call of this run. */
  readonly scope: LedgerScope;
  /** The terminal refusal that stopped the run (this run's or its fuse run's), or `null`. */
  readonly stopped: GuardRefusal | null;
  /**
   * Run one call through registry → fuses → argument validation → ledger claim → cache → `execute`
   * → output validation → ledger complete. Never throws; pass `undefined` as `execute` for a tool
   * the framework has no body for (refused as `unknown_tool`). A call id this run already checked
   * with the same arguments is a redispatch: its first fuse verdict stands and it is not counted twice.
   */
  executeToolCall<A = unknown>(
    call: ToolCallInput,
    execute: ToolExecutor<A> | undefined,
    options?: ExecuteToolCallOptions,
  ): Promise<ToolCallOutcome>;
  /**
   * Begin a model turn: the tool calls after it are the model's answer of that turn, so a call id
   * redispatched within it is not counted twice and one re-sent in a later turn is. Pass the model
   * message's id as `turnId` where the framework has one: a turn resumed under the same id
   * continues. `checkModelCall` begins a turn too; an adapter that guards no model call (a tool
   * node alone) calls this once per model message it executes.
   */
  beginTurn(turnId?: string): void;
  /** Budget pre-flight of a model call (it also begins a turn); a refused call must not be sent. */
  checkModelCall(input: ModelCallCheck): ModelCallGate;
  /** Book a model call's usage (any provider shape) in place of its reservation; `null` without fuses. */
  recordModelUsage(usage: unknown, reservation: ModelReservation | null): BudgetBooking | null;
  /** Give back the reservation of a call that was not made. */
  releaseModelCall(reservation: ModelReservation | null): void;
  /** Repair a transcript (orphan results, unanswered calls, duplicate ids) and report the changes. */
  repairTranscript<M>(messages: readonly M[], options?: RepairTranscriptOptions): M[];
  /** Stop the run with `refusal` (an adapter's own terminal rule). The first stop wins. */
  stop(refusal: GuardRefusal): void;
  /** Clear the stop latch, and the fuse run's latch, denials and loop history. */
  reset(): void;
  /** End the run: the pipeline forgets it, and its fuse run ends once no other node of the run is left. */
  end(): void;
}
