/**
 * What each scenario expects of the guarded run against the stock one, as a check over the
 * measured figures: the report says per framework whether hyphae did it.
 */
import { MAX_TOKENS } from './guards.js';
import type { RunFigures } from './harness.js';
import type { ScenarioId } from './scenarios.js';

/** A scenario's check: `null` when met, else what was missed. */
type Check = (stock: RunFigures, hyphae: RunFigures) => string | null;

const stoppedByHyphae = (run: RunFigures): boolean => /hyphae/.test(run.ended);

export const checks: Readonly<Record<ScenarioId, Check>> = {
  loop: (stock, hyphae) =>
    hyphae.effects < stock.effects && stoppedByHyphae(hyphae) ? null : 'the repeated call was not stopped',
  cycle: (stock, hyphae) =>
    hyphae.toolExecutions < stock.toolExecutions && stoppedByHyphae(hyphae) ? null : 'the cycle was not stopped',
  polling: (stock, hyphae) =>
    hyphae.toolExecutions === stock.toolExecutions && hyphae.ended === stock.ended
      ? null
      : 'a legitimate poll was refused',
  permission: (_stock, hyphae) => (hyphae.effects === 0 ? null : 'the refund went through'),
  budget: (_stock, hyphae) =>
    hyphae.tokens <= MAX_TOKENS
      ? null
      : `${hyphae.tokens.toLocaleString('en-US')} tokens spent against ${MAX_TOKENS.toLocaleString('en-US')}`,
  redispatch: (stock, hyphae) =>
    stock.effects === 2 && hyphae.effects === 1 ? null : `${hyphae.effects} charges with hyphae`,
  orphan: (_stock, hyphae) => (hyphae.ended === 'completed' ? null : `ended: ${hyphae.ended}`),
};
