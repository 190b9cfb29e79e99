/**
 * The fuse box: the fuses of an agent, a per-run state for each run id, and an event log that
 * replays to the same verdicts.
 */
import { type Clock, systemClock } from '../core/clock.js';
import { InvalidOptionError } from '../errors.js';
import { optionsOf } from '../invalid-argument.js';
import type { BudgetFuse } from './budget.js';
import { FuseLogError } from './errors.js';
import { type FuseEvent, FuseEventType } from './events.js';
import { createRunBox, type FuseRun } from './run-box.js';
import { createRunEngine, type RunEngine } from './run-engine.js';
import type { ToolFuse } from './tool-fuse.js';
import { FuseCode, FuseName, type FuseRefusal, refusal, sentences } from './verdict.js';

/** Options of {@link createFuseBox}. */
export interface FuseBoxOptions {
  /** Checked first on every tool call. */
  readonly permission?: ToolFuse;
  /** Checked second on every tool call. */
  readonly loop?: ToolFuse;
  /** Checked on every model call. */
  readonly budget?: BudgetFuse;
  /** Timestamps of events (default: the system clock). No verdict depends on time. */
  readonly clock?: Clock;
  /** Keep events in `box.log` (default `true`); long-lived boxes may stream them to `onEvent` instead. */
  readonly keepLog?: boolean;
  /** Receives every event as it is logged; a throwing hook is ignored. */
  readonly onEvent?: (event: FuseEvent) => void;
}

/** The fuses of an agent and their runs. */
export interface FuseBox {
  /**
   * The run box of `runId`: the same object for the same id until its `end()`, so state is never
   * shared between two runs and never split within one.
   */
  forRun(runId: string): FuseRun;
  /** Every event of every run, in order (empty when `keepLog` is false). */
  readonly log: readonly FuseEvent[];
  /**
   * Replay a log into fresh fuse state and return the events it produces: for a log this box (or
   * one with the same fuses) recorded, they deep-equal the log. The box's own runs and log are
   * untouched. Throws {@link FuseLogError} for an event it cannot read.
   */
  replay(log: readonly FuseEvent[]): FuseEvent[];
}

function endedRefusal(runId: string, subject: string): FuseRefusal {
  return refusal({
    fuse: FuseName.box,
    code: FuseCode.run_stopped,
    reason: `Run \`${runId}\` has ended`,
    note: sentences(`${subject} was NOT executed: this run has ended`, 'Do not make further calls'),
    terminal: true,
    evidence: { runId },
  });
}

function replayEvent(engine: RunEngine, event: FuseEvent): FuseEvent {
  switch (event.type) {
    case FuseEventType.tool_call:
      return { ...event, verdict: engine.toolCall(event.call) };
    case FuseEventType.tool_result:
      return { ...event, verdict: engine.toolResult(event.call, event.resultFingerprint, event.ok !== false) };
    case FuseEventType.turn:
      engine.beginTurn(event.turnId);
      return { ...event };
    case FuseEventType.model_call:
      return { ...event, ...engine.modelCall(event.model, event.request, event.beginTurn !== false) };
    case FuseEventType.model_usage:
      return { ...event, booking: engine.modelUsage(event.reading, event.model, event.reservationId) };
    case FuseEventType.release:
      return { ...event, released: engine.release(event.reservationId) };
    case FuseEventType.reset:
      engine.reset();
      return { ...event };
    case FuseEventType.end:
      return { ...event };
  }
}

/**
 * Create a fuse box. Tool calls go through permission then loop; model calls through the budget.
 * A terminal refusal latches: every later call of the run (the siblings of the same turn too) is
 * refused with `run_stopped` until `run.reset()`. Loop and budget refusals are terminal by default.
 * Calls are counted per model turn (`run.beginTurn()`, or a model call's pre-flight): a call id
 * redispatched within its turn is not counted twice; re-sent in a later turn, it is. Every decision is logged with the facts it was
 * made on; `box.replay(box.log)` reproduces the same verdicts.
 *
 * @example
 * const box = createFuseBox({
 *   permission: permissionFuse({ granted: ['read'], tools: { lookup_order: ['read'], issue_refund: ['write', 'spend_money'] } }),
 *   loop: loopFuse({ repeatThreshold: 3, maxCycleLength: 4 }),
 *   budget: budgetFuse({ maxUsd: 0.05, price: { inputPer1k: 0.05, outputPer1k: 0.15 } }),
 * });
 * const run = box.forRun('run-1');
 * const verdict = run.checkToolCall({ name: 'issue_refund', args: { amount: 40 } });
 * // verdict.allowed === false, verdict.fuse === 'permission'
 */
export function createFuseBox(given: FuseBoxOptions = {}): FuseBox {
  const options = optionsOf('createFuseBox', given, true);
  const slots = Object.freeze({
    ...(options.permission === undefined ? {} : { permission: options.permission }),
    ...(options.loop === undefined ? {} : { loop: options.loop }),
    ...(options.budget === undefined ? {} : { budget: options.budget }),
  });
  const clock = options.clock ?? systemClock;
  const keepLog = options.keepLog ?? true;
  const onEvent = options.onEvent;
  const log: FuseEvent[] = [];
  const runs = new Map<string, FuseRun>();

  function emit(event: FuseEvent): void {
    if (keepLog) log.push(event);
    if (onEvent === undefined) return;
    try {
      onEvent(event);
    } catch {
      // A failing sink must not turn a verdict into an exception.
    }
  }

  return {
    forRun(runId) {
      if (typeof runId !== 'string' || runId === '') {
        throw new InvalidOptionError('runId', `A run id must be a non-empty string (got \`${String(runId)}\`)`);
      }
      const existing = runs.get(runId);
      if (existing !== undefined) return existing;
      const run = createRunBox({
        runId,
        engine: createRunEngine(runId, slots),
        budget: slots.budget,
        now: () => clock.now(),
        logging: keepLog || onEvent !== undefined,
        emit,
        onEnd: () => runs.delete(runId),
        ended: (subject) => endedRefusal(runId, subject),
      });
      runs.set(runId, run);
      return run;
    },
    get log() {
      return log;
    },
    replay(events) {
      const engines = new Map<string, RunEngine>();
      return events.map((event, index) => {
        if (typeof event?.runId !== 'string' || !Object.hasOwn(FuseEventType, event.type)) {
          throw new FuseLogError(index, `unknown event type \`${String(event?.type)}\``);
        }
        let engine = engines.get(event.runId);
        if (engine === undefined) {
          engine = createRunEngine(event.runId, slots);
          engines.set(event.runId, engine);
        }
        if (event.type === FuseEventType.end) engines.delete(event.runId);
        return replayEvent(engine, event);
      });
    },
  };
}
