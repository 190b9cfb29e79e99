import { describe, expect, it } from 'vitest';
import { budgetFuse } from '../../src/fuses/budget.js';
import { FuseConfigError } from '../../src/fuses/errors.js';
import { createFuseBox } from '../../src/fuses/fuse-box.js';
import { FuseCode } from '../../src/fuses/verdict.js';
import { charCounter, refused, simpleBudget } from './helpers.js';

function budgetRun(budget = simpleBudget({ maxUsd: 1 })) {
  return createFuseBox({ budget }).forRun('run-1');
}

/** One user message of `n` characters: 3 (priming) + 4 (framing) + `user\n`.length + n tokens with {@link charCounter}. */
function prompt(n: number) {
  return [{ role: 'user', content: 'x'.repeat(n) }];
}
const framing = 3 + 4 + 'user\n'.length;

describe('budgetFuse: pre-flight', () => {
  it('allows the cheap call and refuses the dear one (lesson)', () => {
    const run = createFuseBox({
      budget: budgetFuse({ maxUsd: 0.05, price: { inputPer1k: 0.05, outputPer1k: 0.15 } }),
    }).forRun('run-1');
    const messages = [{ role: 'user', content: 'Where is order 7?' }];

    const cheap = run.checkModelCall({ model: 'claude-haiku', messages, maxOutputTokens: 200 });
    const dear = run.checkModelCall({ model: 'claude-haiku', messages, maxOutputTokens: 400_000 });

    expect(cheap.verdict.allowed).toBe(true);
    expect(cheap.reservation).toMatchObject({ id: 'res-1', model: 'claude-haiku' });
    expect(refused(dear.verdict)).toMatchObject({
      fuse: 'budget',
      code: FuseCode.budget_usd_exceeded,
      terminal: true,
    });
    expect(refused(dear.verdict).note).toContain('was NOT made');
    expect(dear.reservation).toBeNull();
  });

  it('estimates prompt, tool schemas and the whole completion cap', () => {
    const run = budgetRun();
    const tools = [{ name: 'lookup_order', parameters: { type: 'object' } }];

    const { reservation } = run.checkModelCall({ model: 'm', messages: prompt(100), tools, maxOutputTokens: 50 });

    const input = framing + 100 + JSON.stringify(tools).length;
    expect(reservation?.tokens).toBe(input + 50);
    expect(reservation?.usd).toBeCloseTo((input * 1 + 50 * 2) / 1000, 12);
  });

  it('gates the token ceiling', () => {
    const run = budgetRun(simpleBudget({ maxTokens: 1_000 }));

    expect(run.checkModelCall({ model: 'm', messages: prompt(400), maxOutputTokens: 500 }).verdict.allowed).toBe(true);
    const second = refused(run.checkModelCall({ model: 'm', messages: prompt(10), maxOutputTokens: 100 }).verdict);
    expect(second.code).toBe(FuseCode.budget_tokens_exceeded);
  });

  it('ends the run at a ceiling refusal by default: every later call of the run is refused', () => {
    const run = budgetRun(simpleBudget({ maxUsd: 0.5 }));
    const call = { model: 'm', messages: prompt(88), maxOutputTokens: 100 }; // $0.1 + $0.2

    const a = run.checkModelCall(call);
    const b = refused(run.checkModelCall(call).verdict);
    run.recordModelUsage({ prompt_tokens: 10, completion_tokens: 5 }, { reservation: a.reservation });

    expect(b).toMatchObject({ code: FuseCode.budget_usd_exceeded, terminal: true });
    expect(b.note).toContain('stopped before it exceeds its budget');
    expect(run.stopped).toBe(b);
    expect(refused(run.checkModelCall({ model: 'm', messages: prompt(1), maxOutputTokens: 1 }).verdict).code).toBe(
      FuseCode.run_stopped,
    );
    expect(refused(run.checkToolCall({ name: 'lookup_order', args: {} })).code).toBe(FuseCode.run_stopped);
  });

  it('holds reservations, so two concurrent pre-flights cannot overspend together (`terminal: false`)', () => {
    const run = budgetRun(simpleBudget({ maxUsd: 0.5, terminal: false }));
    const call = { model: 'm', messages: prompt(88), maxOutputTokens: 100 }; // $0.1 + $0.2

    const a = run.checkModelCall(call);
    const b = run.checkModelCall(call);

    expect(a.verdict.allowed).toBe(true);
    expect(refused(b.verdict).terminal).toBe(false);
    expect(run.stats().budget).toMatchObject({ outstanding: 1, reservedUsd: 0.3 });

    run.recordModelUsage({ prompt_tokens: 100, completion_tokens: 50 }, { reservation: a.reservation });

    expect(run.stats().budget).toMatchObject({ outstanding: 0, spentUsd: 0.2, spentTokens: 150 });
    expect(run.checkModelCall(call).verdict.allowed).toBe(true);
  });

  it('frees a reservation on release', () => {
    const run = budgetRun(simpleBudget({ maxUsd: 0.5, terminal: false }));
    const call = { model: 'm', messages: prompt(88), maxOutputTokens: 100 };
    const a = run.checkModelCall(call);
    expect(run.checkModelCall(call).verdict.allowed).toBe(false);

    expect(run.release(a.reservation ?? 'none')).toBe(true);
    expect(run.release(a.reservation ?? 'none')).toBe(false);

    expect(run.checkModelCall(call).verdict.allowed).toBe(true);
  });

  it('with `terminal: false`, is terminal only when the books themselves have reached the ceiling', () => {
    const run = budgetRun(simpleBudget({ maxUsd: 0.2, terminal: false }));
    const { reservation } = run.checkModelCall({ model: 'm', messages: prompt(10), maxOutputTokens: 10 });
    run.recordModelUsage({ input_tokens: 200, output_tokens: 0 }, { reservation });

    const next = refused(run.checkModelCall({ model: 'm', messages: prompt(10), maxOutputTokens: 10 }).verdict);

    expect(next).toMatchObject({ code: FuseCode.budget_usd_exceeded, terminal: true });
    expect(next.note).toContain('The budget is used up');
  });

  it('refuses a model without a price under strict pricing, and lets it through otherwise', () => {
    const strict = createFuseBox({
      budget: budgetFuse({
        maxUsd: 1,
        prices: { 'gpt-4o': { inputPer1k: 1, outputPer1k: 1 } },
        tokenCounter: charCounter,
      }),
    }).forRun('run-1');
    const lax = createFuseBox({
      budget: budgetFuse({ maxUsd: 1, strictPricing: false, tokenCounter: charCounter }),
    }).forRun('r');
    const call = { model: 'mystery-model', messages: prompt(1), maxOutputTokens: 1 };

    expect(refused(strict.checkModelCall(call).verdict).code).toBe(FuseCode.budget_price_missing);
    expect(strict.checkModelCall({ ...call, model: 'gpt-4o' }).verdict.allowed).toBe(true);
    expect(lax.checkModelCall(call)).toMatchObject({ verdict: { allowed: true }, reservation: { usd: null } });
  });

  it.each([
    [{ model: 'm', messages: prompt(1), maxOutputTokens: -1 }, '`maxOutputTokens`'],
    [{ model: 'm', messages: prompt(1), maxOutputTokens: Number.NaN }, '`maxOutputTokens`'],
    [{ model: 'm', messages: 'hi', maxOutputTokens: 1 }, '`messages`'],
    [{ model: '', messages: [], maxOutputTokens: 1 }, '`model`'],
    [{ model: 'm', messages: [{ content: 1n }], maxOutputTokens: 1 }, 'no JSON form'],
  ])('refuses a request it cannot estimate (%o), without throwing', (input, message) => {
    const verdict = refused(budgetRun().checkModelCall(input as never).verdict);

    expect(verdict).toMatchObject({ code: FuseCode.budget_invalid_request, terminal: false });
    expect(verdict.reason).toContain(message);
  });

  it('turns a failing token counter into a terminal internal-error refusal', () => {
    const bad = [
      () => Number.NaN,
      () => -1,
      () => {
        throw new Error('tokenizer down');
      },
    ];
    for (const tokenCounter of bad) {
      const run = createFuseBox({
        budget: budgetFuse({ maxUsd: 1, price: { inputPer1k: 1, outputPer1k: 1 }, tokenCounter }),
      }).forRun('r');
      const verdict = refused(run.checkModelCall({ model: 'm', messages: prompt(1), maxOutputTokens: 1 }).verdict);
      expect(verdict).toMatchObject({ code: FuseCode.fuse_internal_error, terminal: true });
    }
  });

  it('rejects negative ceilings and prices at construction', () => {
    expect(() => budgetFuse({ maxUsd: -1 })).toThrow(FuseConfigError);
    expect(() => budgetFuse({ maxTokens: Number.POSITIVE_INFINITY })).toThrow(FuseConfigError);
    expect(() => budgetFuse({ price: { inputPer1k: -0.1, outputPer1k: 0 } })).toThrow(/`price.inputPer1k`/);
    expect(() => budgetFuse({ prices: { m: null as never } })).toThrow(FuseConfigError);
  });
});

describe('budgetFuse: booking usage', () => {
  it('books real usage with cached input at the cached price', () => {
    const run = budgetRun();
    const { reservation } = run.checkModelCall({ model: 'm', messages: prompt(10), maxOutputTokens: 10 });

    const booking = run.recordModelUsage(
      { prompt_tokens: 1_000, completion_tokens: 100, prompt_tokens_details: { cached_tokens: 800 } },
      { reservation },
    );

    expect(booking.verdict.allowed).toBe(true);
    expect(booking.source).toBe('usage');
    expect(booking.tokens).toBe(1_100);
    expect(booking.usd).toBeCloseTo((200 * 1 + 800 * 0.5 + 100 * 2) / 1000, 12);
  });

  it('books the reservation for missing usage and counts it', () => {
    const run = budgetRun();
    const { reservation } = run.checkModelCall({ model: 'm', messages: prompt(10), maxOutputTokens: 10 });

    const booking = run.recordModelUsage(undefined, { reservation });

    expect(booking).toMatchObject({ verdict: { allowed: true }, source: 'reservation', tokens: reservation?.tokens });
    expect(booking.totals).toMatchObject({ missingUsage: 1, outstanding: 0, spentUsd: reservation?.usd });
  });

  it('stops the run when usage is missing and no reservation can stand in', () => {
    const run = budgetRun();

    const booking = run.recordModelUsage({}, { model: 'm' });

    expect(refused(booking.verdict)).toMatchObject({ code: FuseCode.budget_usage_missing, terminal: true });
    expect(run.stopped?.code).toBe(FuseCode.budget_usage_missing);
  });

  it.each([
    { prompt_tokens: -5, completion_tokens: 1 },
    { prompt_tokens: Number.NaN, completion_tokens: 1 },
    { input_tokens: Number.POSITIVE_INFINITY, output_tokens: 1 },
    { inputTokens: '12', outputTokens: 1 },
    { prompt_tokens: 10, completion_tokens: 1, prompt_tokens_details: { cached_tokens: 11 } },
  ])('refuses invalid usage %o without throwing, booking the reservation', (usage) => {
    const run = budgetRun();
    const { reservation } = run.checkModelCall({ model: 'm', messages: prompt(10), maxOutputTokens: 10 });

    const booking = run.recordModelUsage(usage, { reservation });

    expect(refused(booking.verdict)).toMatchObject({ code: FuseCode.budget_invalid_usage, terminal: true });
    expect(booking.source).toBe('reservation');
    expect(booking.totals.invalidUsage).toBe(1);
  });

  it('stops the run when real usage overspends the ceiling', () => {
    const run = budgetRun(simpleBudget({ maxUsd: 0.1 }));
    const { reservation } = run.checkModelCall({ model: 'm', messages: prompt(10), maxOutputTokens: 10 });

    const booking = run.recordModelUsage({ input_tokens: 90_000, output_tokens: 0 }, { reservation });

    expect(refused(booking.verdict)).toMatchObject({ code: FuseCode.budget_usd_exceeded, terminal: true });
    expect(refused(run.checkModelCall({ model: 'm', messages: [], maxOutputTokens: 0 }).verdict).code).toBe(
      FuseCode.run_stopped,
    );
  });

  it('keeps its books across a reset: money spent stays spent', () => {
    const run = budgetRun(simpleBudget({ maxUsd: 1 }));
    run.recordModelUsage({ input_tokens: 500, output_tokens: 0 }, { model: 'm' });

    run.reset();

    expect(run.stats().budget).toMatchObject({ spentUsd: 0.5, spentTokens: 500 });
  });
});
