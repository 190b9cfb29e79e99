/**
 * Which configured tools and tasks the ledgers cover.
 */
import type { ConfigSettings } from './types.js';

/** The tools the action ledger records: none without `transition` and `action_ledger`. */
export function ledgeredTools(settings: ConfigSettings): readonly string[] {
  const coverage = settings.actionLedger?.tools;
  if (settings.transition === undefined || coverage === undefined) return [];
  return coverage === 'all' ? Object.keys(settings.tools) : coverage;
}

/** The tasks the task ledger records: none without `transition` and `task_ledger`. */
export function ledgeredTasks(settings: ConfigSettings): readonly string[] {
  const coverage = settings.taskLedger?.tasks;
  if (settings.transition === undefined || coverage === undefined) return [];
  return coverage === 'all' ? Object.keys(settings.tasks) : coverage;
}
