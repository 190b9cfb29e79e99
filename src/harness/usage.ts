/**
 * Token usage summed over a run's model calls.
 */
import type { ModelCallPurpose, ModelUsage } from './models/types.js';

/** Tokens of the model calls of one purpose. */
export interface PurposeUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly calls: number;
  readonly callsWithoutUsage: number;
}

/** Tokens of every model call of a run (main and vision), in total and per purpose. */
export interface HarnessUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cachedInputTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
  readonly totalTokens: number;
  /** Model calls made. */
  readonly calls: number;
  /** Calls whose provider reported no usage (their tokens are not in the sums). */
  readonly callsWithoutUsage: number;
  /** The same sums per purpose: `main`, `render_review`, `asset_inspection`, `comparison`. */
  readonly byPurpose: Readonly<Record<ModelCallPurpose, PurposeUsage>>;
}

const NO_CALLS: PurposeUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  totalTokens: 0,
  calls: 0,
  callsWithoutUsage: 0,
});

/** Usage of no calls. */
export const EMPTY_USAGE: HarnessUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
  totalTokens: 0,
  calls: 0,
  callsWithoutUsage: 0,
  byPurpose: Object.freeze({
    main: NO_CALLS,
    render_review: NO_CALLS,
    asset_inspection: NO_CALLS,
    comparison: NO_CALLS,
  }),
});

function addPurpose(sum: PurposeUsage, usage: ModelUsage | undefined): PurposeUsage {
  return Object.freeze({
    inputTokens: sum.inputTokens + (usage?.inputTokens ?? 0),
    outputTokens: sum.outputTokens + (usage?.outputTokens ?? 0),
    totalTokens: sum.totalTokens + (usage === undefined ? 0 : usage.inputTokens + usage.outputTokens),
    calls: sum.calls + 1,
    callsWithoutUsage: sum.callsWithoutUsage + (usage === undefined ? 1 : 0),
  });
}

/** Add one call's usage (or its absence) to a sum. */
export function addUsage(
  sum: HarnessUsage,
  usage: ModelUsage | undefined,
  purpose: ModelCallPurpose = 'main',
): HarnessUsage {
  const byPurpose = Object.freeze({ ...sum.byPurpose, [purpose]: addPurpose(sum.byPurpose[purpose], usage) });
  if (usage === undefined)
    return { ...sum, calls: sum.calls + 1, callsWithoutUsage: sum.callsWithoutUsage + 1, byPurpose };
  return {
    byPurpose,
    inputTokens: sum.inputTokens + usage.inputTokens,
    outputTokens: sum.outputTokens + usage.outputTokens,
    cachedInputTokens: sum.cachedInputTokens + (usage.cachedInputTokens ?? 0),
    cacheWriteTokens: sum.cacheWriteTokens + (usage.cacheWriteTokens ?? 0),
    reasoningTokens: sum.reasoningTokens + (usage.reasoningTokens ?? 0),
    totalTokens: sum.totalTokens + usage.inputTokens + usage.outputTokens,
    calls: sum.calls + 1,
    callsWithoutUsage: sum.callsWithoutUsage,
  };
}

/** Check a model's usage report; `undefined` for a missing or unusable one. */
export function checkedUsage(usage: unknown): ModelUsage | undefined {
  if (typeof usage !== 'object' || usage === null) return undefined;
  const u = usage as Readonly<Record<string, unknown>>;
  const ok = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value) && value >= 0;
  if (!ok(u.inputTokens) || !ok(u.outputTokens)) return undefined;
  const optional = (key: string): number => (ok(u[key]) ? (u[key] as number) : 0);
  return {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    cachedInputTokens: optional('cachedInputTokens'),
    cacheWriteTokens: optional('cacheWriteTokens'),
    reasoningTokens: optional('reasoningTokens'),
  };
}
