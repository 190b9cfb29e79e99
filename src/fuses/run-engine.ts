/**
 * The state machine of one run: the fuses' per-run state, the terminal latch, the model turns and
 * the order permission → loop → budget. It works on recorded facts only, so the live run box and a
 * replay drive the same code.
 *
 * Counting follows the model, not the dispatch. A call id checked again in the same turn with the
 * same tool and arguments is the framework redispatching it: it gets its first verdict and is not
 * counted again. The same id re-sent in a later turn is the model asking again, and counts:
 *
 *   turn 1  c1 search(x) ─► counted ── redispatch c1 ─► first verdict, not counted
 *   turn 2  c1 search(x) ─► counted (the model repeated itself)
 */
import type { BudgetBooking, BudgetFuse, BudgetRun, BudgetTotals, ModelCallDecision } from './budget.js';
import type { ToolCallRecord } from './events.js';
import type { ModelCallRequest } from './model-call.js';
import {
  callSubject,
  type FuseStats,
  signatureOf,
  type ToolCallFacts,
  type ToolFuse,
  type ToolFuseRun,
} from './tool-fuse.js';
import type { UsageReading } from './usage.js';
import {
  ALLOWED,
  FuseCode,
  FuseName,
  type FuseRefusal,
  type FuseVerdict,
  guarded,
  internalErrorRefusal,
  refusal,
  sentences,
} from './verdict.js';

/** The fuses a box runs, by slot. */
export interface FuseSlots {
  readonly permission?: ToolFuse;
  readonly loop?: ToolFuse;
  readonly budget?: BudgetFuse;
}

/** One run's fuse state and latch. */
export interface RunEngine {
  readonly stopped: FuseRefusal | null;
  /** Turns begun so far (0 before the first). */
  readonly turn: number;
  /** Begin a model turn; a `turnId` equal to the current turn's continues it. True when a turn began. */
  beginTurn(turnId: string | null): boolean;
  toolCall(record: ToolCallRecord): FuseVerdict;
  toolResult(record: ToolCallRecord, resultFingerprint: string | null, ok: boolean): FuseVerdict;
  /** Gate a model call; it begins a turn unless `beginTurn` is false. */
  modelCall(model: string, request: ModelCallRequest | null, beginTurn?: boolean): ModelCallDecision;
  modelUsage(reading: UsageReading, model: string | null, reservationId: string | null): BudgetBooking;
  release(reservationId: string): boolean;
  reset(): void;
  /** The budget's books (all zero without a budget fuse). */
  totals(): BudgetTotals;
  stats(): Readonly<Record<string, FuseStats>>;
}

const NO_BUDGET_TOTALS: BudgetTotals = Object.freeze({
  spentUsd: 0,
  spentTokens: 0,
  reservedUsd: 0,
  reservedTokens: 0,
  outstanding: 0,
  missingUsage: 0,
  invalidUsage: 0,
});

function factsOf(record: ToolCallRecord): ToolCallFacts | null {
  if (record.argsJson === null) return null;
  const signature = signatureOf(record.name, record.argsJson);
  return record.id === undefined
    ? { name: record.name, argsJson: record.argsJson, signature }
    : { id: record.id, name: record.name, argsJson: record.argsJson, signature };
}

function invalidCall(record: ToolCallRecord): FuseRefusal {
  return refusal({
    fuse: FuseName.box,
    code: FuseCode.invalid_call,
    reason: `Tool call \`${record.name}\` cannot be checked: ${record.error ?? 'its arguments are not JSON'}`,
    note: `${callSubject(record.name)} was NOT executed: its arguments could not be read. Send the arguments as a JSON object`,
    terminal: false,
    evidence: { tool: record.name, error: record.error ?? null },
  });
}

/** The refusal every call gets while a run is stopped. */
export function stoppedRefusal(runId: string, stoppedBy: FuseRefusal, subject: string): FuseRefusal {
  return refusal({
    fuse: FuseName.box,
    code: FuseCode.run_stopped,
    reason: `Run \`${runId}\` is stopped after a terminal refusal by \`${stoppedBy.fuse}\` (\`${stoppedBy.code}\`); reset it to continue`,
    note: sentences(
      `${subject} was NOT executed: this run was stopped by an earlier refusal`,
      'Do not make further calls; report to the user',
    ),
    terminal: true,
    evidence: { stoppedBy: { fuse: stoppedBy.fuse, code: stoppedBy.code, reason: stoppedBy.reason } },
  });
}

/**
 * Most call ids one turn remembers for redispatch; past it the oldest is forgotten (and a redispatch
 * of it counts again), so a run that never marks a turn keeps bounded memory.
 */
const MAX_TURN_CALLS = 1_024;

/** Start the per-run state of `slots` for `runId`. */
export function createRunEngine(runId: string, slots: FuseSlots): RunEngine {
  const tools: [string, ToolFuse, ToolFuseRun][] = [];
  for (const slot of ['permission', 'loop'] as const) {
    const fuse = slots[slot];
    if (fuse !== undefined) tools.push([slot, fuse, fuse.start()]);
  }
  const budgetFuse = slots.budget;
  const budget: BudgetRun | undefined = budgetFuse?.start();
  let stopped: FuseRefusal | null = null;
  let turn = 0;
  let turnId: string | null = null;
  /** The calls checked in the current turn, by call id. */
  const turnCalls = new Map<string, { readonly signature: string; readonly verdict: FuseVerdict }>();

  function beginTurn(id: string | null): boolean {
    if (id !== null && id === turnId) return false;
    turn++;
    turnId = id;
    turnCalls.clear();
    return true;
  }

  function latch(verdict: FuseVerdict): FuseVerdict {
    if (!verdict.allowed && verdict.terminal && stopped === null) stopped = verdict;
    return verdict;
  }

  // The hot path: no closures, and the note's subject is built only for a refusal.
  function toolCall(record: ToolCallRecord): FuseVerdict {
    if (stopped !== null) return stoppedRefusal(runId, stopped, callSubject(record.name));
    const facts = factsOf(record);
    if (facts === null) return invalidCall(record);
    const seen = facts.id === undefined ? undefined : turnCalls.get(facts.id);
    if (seen !== undefined && seen.signature === facts.signature) return seen.verdict;
    let verdict: FuseVerdict = ALLOWED;
    for (const [, fuse, run] of tools) {
      try {
        verdict = run.check(facts);
        if (verdict?.allowed !== true && verdict?.allowed !== false) throw new Error('the fuse returned no verdict');
      } catch (error) {
        verdict = internalErrorRefusal(fuse.name, 'check', error, callSubject(record.name));
      }
      if (!verdict.allowed) break;
    }
    const final = verdict;
    for (const [, fuse, run] of tools) {
      try {
        run.commit(facts, final);
      } catch (error) {
        if (verdict.allowed) verdict = internalErrorRefusal(fuse.name, 'commit', error, callSubject(record.name));
      }
    }
    if (facts.id !== undefined) {
      turnCalls.set(facts.id, { signature: facts.signature, verdict });
      if (turnCalls.size > MAX_TURN_CALLS) turnCalls.delete(turnCalls.keys().next().value as string);
    }
    return verdict.allowed ? verdict : latch(verdict);
  }

  function toolResult(record: ToolCallRecord, resultFingerprint: string | null, ok: boolean): FuseVerdict {
    const facts = factsOf(record);
    if (facts === null) return ALLOWED;
    for (const [, fuse, run] of tools) {
      const recorded = guarded(fuse.name, 'recordResult', callSubject(record.name), () => {
        run.recordResult(facts, ok ? resultFingerprint : null, ok);
        return ALLOWED;
      });
      if (!recorded.allowed) return latch(recorded);
    }
    return ALLOWED;
  }

  function modelCall(model: string, request: ModelCallRequest | null, beginsTurn = true): ModelCallDecision {
    const subject = `The call to model \`${model}\``;
    // The model's answer to this call is a new turn: its tool calls count afresh.
    if (beginsTurn) beginTurn(null);
    if (stopped !== null) return { verdict: stoppedRefusal(runId, stopped, subject), reservation: null };
    if (budget === undefined || request === null) return { verdict: ALLOWED, reservation: null };
    let decision: ModelCallDecision;
    try {
      decision = budget.check(request);
    } catch (error) {
      decision = {
        verdict: internalErrorRefusal(budgetFuse?.name ?? 'budget', 'check', error, subject),
        reservation: null,
      };
    }
    latch(decision.verdict);
    return decision;
  }

  function modelUsage(reading: UsageReading, model: string | null, reservationId: string | null): BudgetBooking {
    if (budget === undefined) return { verdict: ALLOWED, source: 'none', tokens: 0, usd: 0, totals: NO_BUDGET_TOTALS };
    let booking: BudgetBooking;
    try {
      booking = budget.book(reading, model, reservationId);
    } catch (error) {
      const verdict = internalErrorRefusal(budgetFuse?.name ?? 'budget', 'book', error, 'The usage booking');
      booking = { verdict, source: 'none', tokens: 0, usd: 0, totals: NO_BUDGET_TOTALS };
    }
    latch(booking.verdict);
    return booking;
  }

  return {
    get stopped() {
      return stopped;
    },
    get turn() {
      return turn;
    },
    beginTurn,
    toolCall,
    toolResult,
    modelCall,
    modelUsage,
    release(reservationId) {
      try {
        return budget?.release(reservationId) ?? false;
      } catch {
        return false;
      }
    },
    reset() {
      // Money spent stays spent: the budget's books survive a reset; denials, loops and the latch do not.
      stopped = null;
      turnCalls.clear();
      for (const [, fuse, run] of tools) {
        latch(
          guarded(fuse.name, 'reset', 'The reset', () => {
            run.reset();
            return ALLOWED;
          }),
        );
      }
    },
    totals: () => budget?.totals() ?? NO_BUDGET_TOTALS,
    stats() {
      const out: Record<string, FuseStats> = {};
      const read = (stats: () => FuseStats): FuseStats => {
        try {
          return stats();
        } catch {
          return {};
        }
      };
      for (const [slot, , run] of tools) out[slot] = read(() => run.stats());
      if (budget !== undefined) out.budget = read(() => budget.stats());
      return out;
    },
  };
}
