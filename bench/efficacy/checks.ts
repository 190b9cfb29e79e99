/**
 * What each scenario requires of the guarded run, as a check over the measured figures: the
 * report says per framework whether hyphae met it, and the test holds every row to it.
 */
import { MAX_TOKENS } from './guards.js';
import { COMPLETED, type RunFigures } from './harness.js';
import type { ScenarioId } from './scenarios.js';

/** A scenario's check: `null` when met, else what was missed. */
type Check = (stock: RunFigures, hyphae: RunFigures) => string | null;

const all = (...misses: (string | false)[]): string | null => misses.filter(Boolean).join('; ') || null;

/** At most 2 executions and 3 model requests, and the run ended by the loop refusal. */
const stoppedLoop: Check = (_stock, hyphae) =>
  all(
    hyphae.toolExecutions > 2 && `${hyphae.toolExecutions} executions`,
    hyphae.modelCalls > 3 && `${hyphae.modelCalls} model requests`,
    !/stopped by hyphae \(`loop_/.test(hyphae.ended) && `ended: ${hyphae.ended}`,
  );

/**
 * Nothing refused, and the run completes as stock. A stock run its framework's step cap cut short
 * did not complete: the guarded run (its cap raised) must then do at least the work stock did.
 */
const asStock: Check = (stock, hyphae) =>
  all(
    /refused `/.test(hyphae.guards) && hyphae.guards,
    hyphae.ended !== COMPLETED && `ended: ${hyphae.ended}`,
    (stock.ended === COMPLETED
      ? hyphae.toolExecutions !== stock.toolExecutions
      : hyphae.toolExecutions < stock.toolExecutions) &&
      `${hyphae.toolExecutions} executions against ${stock.toolExecutions} stock`,
  );

/** Exactly one charge. */
const oneCharge: Check = (_stock, hyphae) => (hyphae.effects === 1 ? null : `${hyphae.effects} charges`);

/**
 * Never two charges: one, or none and the model told why — a refusal, or the recorded failure of
 * the first attempt answered again (a framework that turns a tool's error into its result).
 */
const neverTwice: Check = (_stock, hyphae) =>
  hyphae.effects === 1 || (hyphae.effects === 0 && /refused `|answered from the ledger/.test(hyphae.guards))
    ? null
    : `${hyphae.effects} charges (${hyphae.guards})`;

/** The prompt repaired: no 400 from the provider, and the run completes. */
const repaired: Check = (_stock, hyphae) =>
  all(
    hyphae.rejected > 0 && `${hyphae.rejected} provider 400s`,
    hyphae.ended !== COMPLETED && `ended: ${hyphae.ended}`,
  );

/** The requirement of each scenario. */
export const checks: Readonly<Record<ScenarioId, Check>> = {
  loop: stoppedLoop,
  cycle: (_stock, hyphae) =>
    all(
      hyphae.toolExecutions !== 3 && `${hyphae.toolExecutions} executions (the 4th call must be refused)`,
      !/stopped by hyphae \(`loop_cycle`\)/.test(hyphae.ended) && `ended: ${hyphae.ended}`,
    ),
  polling: asStock,
  'polling-identical': asStock,
  permission: (_stock, hyphae) =>
    all(hyphae.effects > 0 && 'the refund went through', hyphae.ended !== COMPLETED && `ended: ${hyphae.ended}`),
  budget: (_stock, hyphae) =>
    hyphae.tokens <= MAX_TOKENS
      ? null
      : `${hyphae.tokens.toLocaleString('en-US')} tokens spent against ${MAX_TOKENS.toLocaleString('en-US')}`,
  orphan: repaired,
  dangling: repaired,
  redispatch: oneCharge,
  replay: oneCharge,
  'abort-retry': neverTwice,
  'same-id': stoppedLoop,
  'twin-calls': oneCharge,
  // Two failures and the identical third try: all three run, and the run completes.
  'flaky-read': (_stock, hyphae) =>
    all(
      hyphae.toolExecutions !== 3 && `${hyphae.toolExecutions} of 3 attempts ran (${hyphae.guards})`,
      hyphae.ended !== COMPLETED && `ended: ${hyphae.ended}`,
    ),
  'payment-fails': neverTwice,
};
