/**
 * Options of the budget fuse, prices and their validation.
 */

import { InvalidOptionError } from '../errors.js';
import type { TokenCounter } from './token-counter.js';

/** US dollars per 1,000 tokens. Cached input defaults to the input price, as do cache writes. */
export interface ModelPrice {
  readonly inputPer1k: number;
  readonly outputPer1k: number;
  readonly cachedInputPer1k?: number;
  readonly cacheWriteInputPer1k?: number;
}

/** Options of {@link budgetFuse}. Ceilings hold per run. */
export interface BudgetFuseOptions {
  /** Dollar ceiling of one run. */
  readonly maxUsd?: number;
  /** Token ceiling (input plus output) of one run. */
  readonly maxTokens?: number;
  /** The price of every model not listed in `prices`. */
  readonly price?: ModelPrice;
  /** Prices by exact model name. */
  readonly prices?: Readonly<Record<string, ModelPrice>>;
  /** Counts prompt tokens (default: gpt-tokenizer for OpenAI models, four characters a token otherwise). */
  readonly tokenCounter?: TokenCounter;
  /** With a `maxUsd`, refuse a model that has no price (default `true`: a missing price means stop). */
  readonly strictPricing?: boolean;
  /**
   * A ceiling refusal ends the run (default `true`). With `false` a pre-flight refusal is handed back
   * (a shorter request may fit) unless the budget is already used up; an overspend stays terminal.
   */
  readonly terminal?: boolean;
  /** Name in verdicts (default `budget`). */
  readonly name?: string;
}

function nonNegative(option: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new InvalidOptionError(
      option,
      `\`${option}\` must be a finite, non-negative number (got \`${String(value)}\`)`,
    );
  }
  return value;
}

function checkedPrice(option: string, price: ModelPrice): ModelPrice {
  if (typeof price !== 'object' || price === null) {
    throw new InvalidOptionError(option, `\`${option}\` must be an object with \`inputPer1k\` and \`outputPer1k\``);
  }
  const out: { -readonly [K in keyof ModelPrice]: ModelPrice[K] } = {
    inputPer1k: nonNegative(`${option}.inputPer1k`, price.inputPer1k),
    outputPer1k: nonNegative(`${option}.outputPer1k`, price.outputPer1k),
  };
  if (price.cachedInputPer1k !== undefined) {
    out.cachedInputPer1k = nonNegative(`${option}.cachedInputPer1k`, price.cachedInputPer1k);
  }
  if (price.cacheWriteInputPer1k !== undefined) {
    out.cacheWriteInputPer1k = nonNegative(`${option}.cacheWriteInputPer1k`, price.cacheWriteInputPer1k);
  }
  return Object.freeze(out);
}

/** Validated budget settings. */
export interface BudgetSettings {
  readonly maxUsd: number | undefined;
  readonly maxTokens: number | undefined;
  readonly strictPricing: boolean;
  readonly terminal: boolean;
  priceOf(model: string): ModelPrice | undefined;
}

/** Check `options`; throws {@link InvalidOptionError} on a negative ceiling or price. */
export function budgetSettings(options: BudgetFuseOptions): BudgetSettings {
  const maxUsd = options.maxUsd === undefined ? undefined : nonNegative('maxUsd', options.maxUsd);
  const maxTokens = options.maxTokens === undefined ? undefined : nonNegative('maxTokens', options.maxTokens);
  const fallback = options.price === undefined ? undefined : checkedPrice('price', options.price);
  const prices = new Map<string, ModelPrice>();
  for (const [model, price] of Object.entries(options.prices ?? {})) {
    prices.set(model, checkedPrice(`prices.${model}`, price));
  }
  return {
    maxUsd,
    maxTokens,
    strictPricing: options.strictPricing ?? true,
    terminal: options.terminal !== false,
    priceOf: (model) => prices.get(model) ?? fallback,
  };
}

/** Dollar cost of token counts at `price`. */
export function costUsd(
  price: ModelPrice,
  tokens: { readonly uncached: number; readonly cached: number; readonly cacheWrite: number; readonly output: number },
): number {
  const cachedRate = price.cachedInputPer1k ?? price.inputPer1k;
  const writeRate = price.cacheWriteInputPer1k ?? price.inputPer1k;
  return (
    (tokens.uncached * price.inputPer1k +
      tokens.cached * cachedRate +
      tokens.cacheWrite * writeRate +
      tokens.output * price.outputPer1k) /
    1000
  );
}
