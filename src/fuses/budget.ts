/**
 * The budget fuse: a pre-flight estimate gates each model call against the run's dollar and token
 * ceilings, holding a reservation until the real usage is booked or the reservation released.
 *
 * A ceiling refusal ends the run unless the fuse is built with `terminal: false`. With that opt-out,
 * the race it handles (two concurrent pre-flights, $0.05 ceiling, $0.03 estimate each):
 *   t0 A checks: spent 0 + reserved 0 + 0.03 ≤ 0.05 → allowed, reserves 0.03
 *   t1 B checks: spent 0 + reserved 0.03 + 0.03 > 0.05 → refused (not terminal: it may fit later)
 *   t2 A books its usage ($0.01): the reservation is replaced by the real spend
 *   t3 B checks again: 0.01 + 0 + 0.03 ≤ 0.05 → allowed
 */

import { optionsOf } from '../invalid-argument.js';
import { type BudgetFuseOptions, type BudgetSettings, budgetSettings, costUsd } from './budget-options.js';
import { isModelCallFault, type ModelCallInput, type ModelCallRequest, measureModelCall } from './model-call.js';
import { defaultTokenCounter } from './token-counter.js';
import type { FuseStats } from './tool-fuse.js';
import { type UsageReading, UsageStatus } from './usage.js';
import { ALLOWED, FuseCode, FuseName, type FuseVerdict, internalErrorRefusal, refusal, sentences } from './verdict.js';

export type { BudgetFuseOptions, ModelPrice } from './budget-options.js';

/** Estimate held for an allowed model call until its usage is booked or it is released. */
export interface ModelReservation {
  readonly id: string;
  readonly model: string;
  readonly tokens: number;
  /** `null` when the model has no price (and pricing is not strict). */
  readonly usd: number | null;
}

/** Answer of a pre-flight: the verdict and, when allowed, the reservation it holds. */
export interface ModelCallDecision {
  readonly verdict: FuseVerdict;
  readonly reservation: ModelReservation | null;
}

/** A run's books. */
export interface BudgetTotals {
  readonly spentUsd: number;
  readonly spentTokens: number;
  readonly reservedUsd: number;
  readonly reservedTokens: number;
  readonly outstanding: number;
  /** Calls whose usage was missing; their reservation was booked instead. */
  readonly missingUsage: number;
  readonly invalidUsage: number;
}

/** What booking a call's usage did. */
export interface BudgetBooking {
  /** A refusal when the usage could not be trusted or the books now exceed a ceiling (terminal). */
  readonly verdict: FuseVerdict;
  /** `usage` when the provider's counts were booked, `reservation` when the estimate stood in. */
  readonly source: 'usage' | 'reservation' | 'none';
  readonly tokens: number;
  readonly usd: number;
  readonly totals: BudgetTotals;
}

/** One run's budget state. */
export interface BudgetRun {
  check(request: ModelCallRequest): ModelCallDecision;
  book(reading: UsageReading, model: string | null, reservationId: string | null): BudgetBooking;
  release(reservationId: string): boolean;
  totals(): BudgetTotals;
  stats(): FuseStats;
}

/** A budget fuse: measures model calls and starts per-run books. */
export interface BudgetFuse {
  readonly name: string;
  /** Measure a call's tokens with the fuse's counter; never throws. */
  measure(input: ModelCallInput): ModelCallRequest;
  start(): BudgetRun;
}

const usdText = (usd: number): string => `$${Number(usd.toPrecision(6))}`;
// Float sums drift by ulps; a ceiling is exceeded only beyond a nano-fraction of itself.
const exceeds = (total: number, max: number): boolean => total - max > 1e-9 * Math.max(1, max);

function startBudget(name: string, settings: BudgetSettings): BudgetRun {
  const reservations = new Map<string, ModelReservation>();
  let spentUsd = 0;
  let spentTokens = 0;
  let missingUsage = 0;
  let invalidUsage = 0;
  let nextId = 1;

  function totals(): BudgetTotals {
    let reservedUsd = 0;
    let reservedTokens = 0;
    for (const r of reservations.values()) {
      reservedUsd += r.usd ?? 0;
      reservedTokens += r.tokens;
    }
    return {
      spentUsd,
      spentTokens,
      reservedUsd,
      reservedTokens,
      outstanding: reservations.size,
      missingUsage,
      invalidUsage,
    };
  }

  function ceilingRefusal(kind: 'usd' | 'tokens', need: number, t: BudgetTotals, model: string): FuseVerdict {
    const usd = kind === 'usd';
    const max = (usd ? settings.maxUsd : settings.maxTokens) as number;
    const spent = usd ? t.spentUsd : t.spentTokens;
    const reserved = usd ? t.reservedUsd : t.reservedTokens;
    const show = usd ? usdText : (n: number): string => `${n} tokens`;
    const terminal = settings.terminal || spent >= max;
    return refusal({
      fuse: name,
      code: usd ? FuseCode.budget_usd_exceeded : FuseCode.budget_tokens_exceeded,
      reason: `Model call to \`${model}\` needs up to ${show(need)}; spent ${show(spent)} and reserved ${show(reserved)} of the ${show(max)} ceiling`,
      note: sentences(
        `The call to model \`${model}\` was NOT made: it could cost more than this run's remaining budget`,
        spent >= max
          ? 'The budget is used up; stop and report to the user'
          : terminal
            ? 'This run was stopped before it exceeds its budget; report to the user'
            : 'Shorten the request or wait for calls in flight to finish',
      ),
      terminal,
      evidence: { model, kind, need, spent, reserved, max },
    });
  }

  function check(request: ModelCallRequest): ModelCallDecision {
    const subject = `The call to model \`${request.model}\``;
    if (isModelCallFault(request)) {
      const verdict =
        request.fault === 'counter_failed'
          ? internalErrorRefusal(name, 'tokenCounter', request.message, subject)
          : refusal({
              fuse: name,
              code: FuseCode.budget_invalid_request,
              reason: `Model call cannot be estimated: ${request.message}`,
              note: `${subject} was NOT made: the request could not be checked against the budget`,
              terminal: false,
              evidence: { model: request.model, message: request.message },
            });
      return { verdict, reservation: null };
    }
    const { model } = request;
    const inputTokens = request.promptTokens + request.toolTokens;
    const tokens = inputTokens + request.maxOutputTokens;
    const price = settings.priceOf(model);
    if (price === undefined && settings.maxUsd !== undefined && settings.strictPricing) {
      const verdict = refusal({
        fuse: name,
        code: FuseCode.budget_price_missing,
        reason: `No price for model \`${model}\` and pricing is strict`,
        note: `${subject} was NOT made: its cost cannot be checked against the budget`,
        terminal: false,
        evidence: { model },
      });
      return { verdict, reservation: null };
    }
    const usd =
      price === undefined
        ? null
        : costUsd(price, { uncached: inputTokens, cached: 0, cacheWrite: 0, output: request.maxOutputTokens });
    const t = totals();
    if (settings.maxTokens !== undefined && exceeds(t.spentTokens + t.reservedTokens + tokens, settings.maxTokens)) {
      return { verdict: ceilingRefusal('tokens', tokens, t, model), reservation: null };
    }
    if (settings.maxUsd !== undefined && usd !== null && exceeds(t.spentUsd + t.reservedUsd + usd, settings.maxUsd)) {
      return { verdict: ceilingRefusal('usd', usd, t, model), reservation: null };
    }
    const reservation: ModelReservation = Object.freeze({ id: `res-${nextId++}`, model, tokens, usd });
    reservations.set(reservation.id, reservation);
    return { verdict: ALLOWED, reservation };
  }

  function overspent(model: string): FuseVerdict {
    for (const kind of ['usd', 'tokens'] as const) {
      const usd = kind === 'usd';
      const max = usd ? settings.maxUsd : settings.maxTokens;
      const spent = usd ? spentUsd : spentTokens;
      if (max === undefined || !exceeds(spent, max)) continue;
      const show = usd ? usdText : (n: number): string => `${n} tokens`;
      return refusal({
        fuse: name,
        code: usd ? FuseCode.budget_usd_exceeded : FuseCode.budget_tokens_exceeded,
        reason: `Run spent ${show(spent)}, over its ${show(max)} ceiling, after a call to \`${model}\``,
        note: 'This run was stopped: it has used up its budget. Report to the user',
        terminal: true,
        evidence: { model, kind, spent, max },
      });
    }
    return ALLOWED;
  }

  function untrusted(code: string, reason: string, model: string): FuseVerdict {
    return refusal({
      fuse: name,
      code,
      reason,
      note: 'This run was stopped: the cost of the last model call could not be accounted for',
      terminal: true,
      evidence: { model, reason },
    });
  }

  function book(reading: UsageReading, modelHint: string | null, reservationId: string | null): BudgetBooking {
    const reservation = reservationId === null ? undefined : reservations.get(reservationId);
    if (reservation !== undefined) reservations.delete(reservation.id);
    const model = modelHint ?? reservation?.model ?? '';
    const spend = (
      tokens: number,
      usd: number,
      source: BudgetBooking['source'],
      verdict: FuseVerdict,
    ): BudgetBooking => {
      spentTokens += tokens;
      spentUsd += usd;
      const final = verdict.allowed ? overspent(model) : verdict;
      return { verdict: final, source, tokens, usd, totals: totals() };
    };
    if (reading.status !== UsageStatus.ok) {
      const missing = reading.status === UsageStatus.missing;
      if (missing) missingUsage++;
      else invalidUsage++;
      const verdict = missing
        ? reservation === undefined
          ? untrusted(FuseCode.budget_usage_missing, 'Usage is missing and no reservation can stand in', model)
          : ALLOWED
        : untrusted(FuseCode.budget_invalid_usage, `Invalid usage: ${reading.reason}`, model);
      if (reservation === undefined) return spend(0, 0, 'none', verdict);
      return spend(reservation.tokens, reservation.usd ?? 0, 'reservation', verdict);
    }
    const tokens = reading.inputTokens + reading.outputTokens;
    const price = model === '' ? undefined : settings.priceOf(model);
    if (price === undefined) {
      const strict = settings.maxUsd !== undefined && settings.strictPricing;
      const verdict = strict
        ? untrusted(FuseCode.budget_price_missing, `No price for model \`${model}\``, model)
        : ALLOWED;
      return spend(tokens, strict ? (reservation?.usd ?? 0) : 0, 'usage', verdict);
    }
    const usd = costUsd(price, {
      uncached: reading.inputTokens - reading.cachedInputTokens - reading.cacheWriteTokens,
      cached: reading.cachedInputTokens,
      cacheWrite: reading.cacheWriteTokens,
      output: reading.outputTokens,
    });
    return spend(tokens, usd, 'usage', ALLOWED);
  }

  return {
    check,
    book,
    release: (reservationId) => reservations.delete(reservationId),
    totals,
    stats: () => ({ ...totals() }),
  };
}

/**
 * Budget fuse. The pre-flight estimate is the prompt's tokens (pluggable counter; gpt-tokenizer
 * for OpenAI models, four characters a token otherwise) plus the tool schemas' JSON plus the whole
 * `maxOutputTokens`, priced without cache discounts; the call is allowed only when spent plus
 * reserved plus the estimate stays within `maxUsd` and `maxTokens`. Real usage (OpenAI, OpenAI
 * Responses, Anthropic or AI SDK shapes) replaces the reservation when booked; missing usage books
 * the reservation and is counted; negative or non-finite counts are refused, never thrown.
 *
 * @example
 * const run = createFuseBox({
 *   budget: budgetFuse({ maxUsd: 0.05, price: { inputPer1k: 0.05, outputPer1k: 0.15 } }),
 * }).forRun('run-1');
 * const { verdict, reservation } = run.checkModelCall({
 *   model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], maxOutputTokens: 100,
 * }); // allowed; reservation { id: 'res-1', tokens: 110, usd: 0.0155 }
 * const response = await client.chat.completions.create({ model: 'gpt-4o', messages, max_tokens: 100 });
 * run.recordModelUsage(response.usage, { reservation });
 */
export function budgetFuse(given: BudgetFuseOptions): BudgetFuse {
  const options = optionsOf('budgetFuse', given);
  const settings = budgetSettings(options);
  const name = options.name ?? FuseName.budget;
  const counter = options.tokenCounter ?? defaultTokenCounter;
  return {
    name,
    measure: (input) => measureModelCall(input, counter),
    start: () => startBudget(name, settings),
  };
}
