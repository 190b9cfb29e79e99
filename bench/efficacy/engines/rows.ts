/**
 * One row of the durable-engine table: a case run stock, then guarded, on one engine, and whether
 * the guarded run met the requirement.
 */
import type { Engine, EngineCaseId, EngineRun } from './types.js';

/** What a guarded run must do, in the report's words. */
export const REQUIRED =
  'exactly 1 charge, and the run completes or fails with a hard block the engine does not retry (never a second charge)';

/** The guarded outcomes that meet the requirement. */
const GUARDED_OUTCOMES = new Set(['completed', 'failed: ledger_hard_block']);

/** One engine and case, stock beside guarded. */
export interface EngineRow {
  readonly engine: Engine;
  readonly caseId: EngineCaseId;
  readonly stock: EngineRun;
  readonly guarded: EngineRun;
  /** Why the guarded run missed the requirement; `null` when met. */
  readonly missed: string | null;
}

/** Why a guarded run missed the requirement, or `null`. */
export function missedBy(guarded: EngineRun): string | null {
  if (guarded.charges !== 1) return `${guarded.charges} charges`;
  if (!GUARDED_OUTCOMES.has(guarded.outcome)) return `ended \`${guarded.outcome}\``;
  return null;
}

/** Run one case on one engine, stock then guarded. */
export async function runEngineRow(engine: Engine, caseId: EngineCaseId): Promise<EngineRow> {
  const stock = await engine.run(caseId, false);
  const guarded = await engine.run(caseId, true);
  return { engine, caseId, stock, guarded, missed: missedBy(guarded) };
}
