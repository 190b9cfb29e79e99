/**
 * The production profile's store rule: a ledger that covers side-effecting tools or tasks needs a
 * store whose records outlive the process. One rule, read from the opened store's own
 * `capabilities.durable` (memory, SQLite `:memory:` and a file under the temp directory say false),
 * so no store kind is special-cased here.
 */
import { describeTarget } from '../storage/drivers.js';
import type { LedgerStorage } from '../storage/ledger-storage.js';
import { ledgeredTasks, ledgeredTools } from './coverage.js';
import type { NodeIssue } from './schema/nodes.js';
import type { ConfigSettings, StoreSettings } from './types.js';

/** Which ledger section a store belongs to. */
export type LedgerSection = 'action_ledger' | 'task_ledger';

/** The first side-effecting tool or task the ledgers on the store of `section` cover (`tools (\`pay\`)`). */
export function sideEffectingCovered(settings: ConfigSettings, section: LedgerSection): string | undefined {
  const covers = (kind: 'tools' | 'tasks'): string | undefined => {
    const names = kind === 'tools' ? ledgeredTools(settings) : ledgeredTasks(settings);
    const name = names.find((candidate) => {
      const cls =
        kind === 'tools'
          ? settings.tools[candidate]?.sideEffectClass
          : (settings.tasks[candidate]?.sideEffectClass ?? 'idempotent_mutate');
      return cls !== undefined && cls !== 'read';
    });
    return name === undefined ? undefined : `${kind} (\`${name}\`)`;
  };
  const sharedTasks = settings.taskLedger?.store === 'action_ledger';
  if (section === 'action_ledger') {
    return (
      (settings.actionLedger === undefined ? undefined : covers('tools')) ?? (sharedTasks ? covers('tasks') : undefined)
    );
  }
  return settings.taskLedger === undefined || sharedTasks ? undefined : covers('tasks');
}

/**
 * The issue that refuses `storage` (opened from `store` of `section`) under the production profile
 * when its records do not outlive the process and its ledger covers a side-effecting tool or task.
 */
export function nonDurableStoreIssue(
  settings: ConfigSettings,
  section: LedgerSection,
  store: StoreSettings,
  storage: LedgerStorage,
): NodeIssue | undefined {
  if (settings.profile !== 'production' || storage.capabilities.durable) return undefined;
  const covered = sideEffectingCovered(settings, section);
  if (covered === undefined) return undefined;
  return {
    path: [section, 'storage'],
    target: 'value',
    message: `The production profile refuses a store whose records do not outlive the process for side-effecting ${covered}: \`${describeTarget(store)}\` is not durable; use a SQLite file outside the temp directory, \`redis\` or \`postgres\``,
  };
}
