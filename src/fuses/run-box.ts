/**
 * The live run box: turns calls into recorded facts, drives the run engine and logs an event per
 * decision.
 */

import { canonicalJson } from '../core/canonical-json.js';
import { fingerprint } from '../core/fingerprint.js';
import type { BudgetBooking, BudgetFuse, ModelCallDecision, ModelReservation } from './budget.js';
import type { FuseEvent, ToolCallRecord } from './events.js';
import type { ModelCallInput } from './model-call.js';
import type { RunEngine } from './run-engine.js';
import type { FuseStats, ToolCall } from './tool-fuse.js';
import { readUsage } from './usage.js';
import { errorMessage, type FuseRefusal, type FuseVerdict } from './verdict.js';

/** A tool call with the result it produced (none when it failed). */
export interface ToolResult extends ToolCall {
  readonly result?: unknown;
}

/** How a tool call ended. */
export interface ToolOutcome {
  /** False when the call failed (threw, or its output was refused); default `true`. */
  readonly ok: boolean;
}

/** How {@link FuseRun.recordModelUsage} ties usage to a pre-flight. */
export interface ModelUsageOptions {
  /** The model that answered (default: the reservation's). */
  readonly model?: string;
  /** The reservation the pre-flight returned; booking replaces it. */
  readonly reservation?: ModelReservation | string | null;
}

/** How {@link FuseRun.checkModelCall} treats the turn. */
export interface ModelCallOptions {
  /**
   * `false` for a pre-flight taken while the current turn's tool calls may still run (a framework
   * that sends the next call itself, checked from its hooks): the check begins no turn. Default `true`.
   */
  readonly beginTurn?: boolean;
}

/** One run's fuses. Every method answers with data and never throws. */
export interface FuseRun {
  readonly runId: string;
  /** The terminal refusal that stopped the run, or `null`. */
  readonly stopped: FuseRefusal | null;
  /** Model turns begun so far (0 before the first). */
  readonly turn: number;
  /**
   * Begin a model turn: the tool calls checked after it are the model's answer of that turn. A
   * `turnId` (the model message's id) equal to the current turn's continues it, so a framework that
   * resumes a turn does not begin a new one. `checkModelCall` begins a turn too. Returns true when
   * a turn began.
   */
  beginTurn(turnId?: string): boolean;
  /**
   * Check a tool call: permission, then loop. A call id already checked in this turn with the same
   * tool and arguments is a redispatch: it gets its first verdict and is not counted again.
   */
  checkToolCall(call: ToolCall): FuseVerdict;
  /**
   * Record how a tool call ended: what it returned (the loop fuse counts a changed result as
   * progress), or `{ ok: false }` when it failed (a failed call may be retried identically up to
   * the loop fuse's `retryAllowance` before it counts as a repeat).
   */
  recordToolResult(call: ToolResult, outcome?: ToolOutcome): FuseVerdict;
  /**
   * Pre-flight a model call against the budget (it begins a turn unless `options.beginTurn` is
   * false); an allowed call holds a reservation.
   */
  checkModelCall(input: ModelCallInput, options?: ModelCallOptions): ModelCallDecision;
  /** Book a model call's real usage (any provider shape) in place of its reservation. */
  recordModelUsage(usage: unknown, options?: ModelUsageOptions): BudgetBooking;
  /** Give back a reservation whose call was not made. */
  release(reservation: ModelReservation | string): boolean;
  /** Clear the latch, permission denials and loop history (the budget's books are kept). */
  reset(): void;
  /** End the run: the box forgets it, and this object refuses every further call. */
  end(): void;
  /** Sizes and counters of each fuse's state, by slot. */
  stats(): Readonly<Record<string, FuseStats>>;
}

/** Logged form of a tool call; never throws. */
export function toolCallRecord(call: ToolCall): ToolCallRecord {
  const name = typeof call?.name === 'string' ? call.name : '';
  const id = typeof call?.id === 'string' ? call.id : undefined;
  let argsJson: string | null = null;
  let error = 'the tool name is missing';
  if (name !== '') {
    try {
      argsJson = canonicalJson(call.args === undefined ? null : call.args);
    } catch (caught) {
      error = errorMessage(caught);
    }
  }
  if (argsJson === null) return id === undefined ? { name, argsJson, error } : { id, name, argsJson, error };
  return id === undefined ? { name, argsJson } : { id, name, argsJson };
}

/** Fingerprint of a tool result; values with a `toJSON` (dates) go through JSON first; `null` if none. */
export function resultFingerprint(result: unknown): string | null {
  try {
    return fingerprint(result === undefined ? null : result);
  } catch {
    try {
      const text = JSON.stringify(result);
      return text === undefined ? null : fingerprint(JSON.parse(text));
    } catch {
      return null;
    }
  }
}

/** Wiring of a live run box. */
export interface RunBoxContext {
  readonly runId: string;
  readonly engine: RunEngine;
  readonly budget: BudgetFuse | undefined;
  readonly now: () => number;
  /** False when nobody reads events (no log kept, no hook): they are then not even built. */
  readonly logging: boolean;
  readonly emit: (event: FuseEvent) => void;
  readonly onEnd: () => void;
  /** The refusal of a call made after `end()`. */
  readonly ended: (subject: string) => FuseRefusal;
}

/** Build the live run box over an engine. */
export function createRunBox(context: RunBoxContext): FuseRun {
  const { runId, engine, budget, now, emit, logging } = context;
  let ended = false;

  return {
    runId,
    get stopped() {
      return engine.stopped;
    },
    checkToolCall(call) {
      const record = toolCallRecord(call);
      if (ended) return context.ended(`The call to \`${record.name}\``);
      const verdict = engine.toolCall(record);
      if (logging) emit({ type: 'tool_call', runId, at: now(), call: record, verdict });
      return verdict;
    },
    get turn() {
      return engine.turn;
    },
    beginTurn(turnId) {
      if (ended) return false;
      const id = typeof turnId === 'string' ? turnId : null;
      const began = engine.beginTurn(id);
      if (began && logging) emit({ type: 'turn', runId, at: now(), turnId: id });
      return began;
    },
    recordToolResult(call, outcome) {
      const record = toolCallRecord(call);
      if (ended) return context.ended('The result');
      const ok = outcome?.ok !== false;
      const fp = ok ? resultFingerprint(call?.result) : null;
      const verdict = engine.toolResult(record, fp, ok);
      emit({ type: 'tool_result', runId, at: now(), call: record, resultFingerprint: fp, ok, verdict });
      return verdict;
    },
    checkModelCall(input, options) {
      const model = typeof input?.model === 'string' ? input.model : '';
      if (ended) return { verdict: context.ended(`The call to model \`${model}\``), reservation: null };
      const request = budget === undefined ? null : budget.measure(input);
      const beginTurn = options?.beginTurn !== false;
      const decision = engine.modelCall(model, request, beginTurn);
      emit({ type: 'model_call', runId, at: now(), model, ...(beginTurn ? {} : { beginTurn }), request, ...decision });
      return decision;
    },
    recordModelUsage(usage, options = {}) {
      const reading = readUsage(usage);
      const model = typeof options.model === 'string' ? options.model : null;
      const reservation = options.reservation;
      const reservationId = typeof reservation === 'string' ? reservation : (reservation?.id ?? null);
      if (ended) {
        const verdict = context.ended('The usage booking');
        return { verdict, source: 'none', tokens: 0, usd: 0, totals: engine.totals() };
      }
      const booking = engine.modelUsage(reading, model, reservationId);
      emit({ type: 'model_usage', runId, at: now(), reading, model, reservationId, booking });
      return booking;
    },
    release(reservation) {
      const reservationId = typeof reservation === 'string' ? reservation : reservation?.id;
      if (ended || typeof reservationId !== 'string') return false;
      const released = engine.release(reservationId);
      emit({ type: 'release', runId, at: now(), reservationId, released });
      return released;
    },
    reset() {
      if (ended) return;
      engine.reset();
      emit({ type: 'reset', runId, at: now() });
    },
    end() {
      if (ended) return;
      ended = true;
      emit({ type: 'end', runId, at: now() });
      context.onEnd();
    },
    stats: () => engine.stats(),
  };
}
