/**
 * Tools and tasks a mycelium-runtime ledger lists without configuring them. mycelium-runtime ran
 * such tools unclassified (its v1.2 mode, kept by configs without `transition:`); here every
 * ledgered tool declares its class, so the migration writes one, choosing the class that never
 * runs a call again on a guess.
 */
import type { YAMLMap } from 'yaml';
import { isMapping } from './convert-values.js';
import { keyOf, type Migration, pairsOf, plain, setKey, valueAt } from './migration-doc.js';

/** The class written for a ledgered tool that declares none: never run again after an ambiguous failure. */
export const UNCLASSIFIED_TOOL_CLASS = 'non_idempotent_mutate';

/** The names a ledger section lists under `key`: the list, or with `all` every name under `section`. */
function listed(root: YAMLMap, ledger: string, key: string, section: string): string[] {
  const value = plain(valueAt(valueAt(root, ledger), key));
  if (Array.isArray(value)) return value.filter((name) => name !== undefined && name !== null).map(String);
  return value === 'all' ? pairsOf(valueAt(root, section)).map(keyOf) : [];
}

/** The mapping under `key` of `section` in `root`, made when missing or empty. */
function entry(m: Migration, root: YAMLMap, section: string, key: string): YAMLMap | undefined {
  if (!isMapping(valueAt(root, section))) {
    if (valueAt(root, section) !== undefined && plain(valueAt(root, section)) !== null) return undefined;
    setKey(m.doc, root, section, {});
  }
  const map = valueAt(root, section) as YAMLMap;
  const current = valueAt(map, key);
  if (isMapping(current)) return current;
  if (current !== undefined && plain(current) !== null) return undefined;
  setKey(m.doc, map, key, {});
  return valueAt(map, key) as YAMLMap;
}

/**
 * Give every tool `action_ledger` lists a `side_effect_class`, and every task `task_ledger` lists an
 * entry under `tasks`, noting each addition.
 */
export function configureLedgered(m: Migration, root: YAMLMap): void {
  for (const name of listed(root, 'action_ledger', 'tools', 'tools')) {
    const tool = entry(m, root, 'tools', name);
    if (tool === undefined || valueAt(tool, 'side_effect_class') !== undefined) continue;
    setKey(
      m.doc,
      tool,
      'side_effect_class',
      UNCLASSIFIED_TOOL_CLASS,
      'TODO: `read` for a tool that only reads; the class that says what it does otherwise',
    );
    m.note(
      'added',
      `tools.${name}.side_effect_class`,
      null,
      `\`${name}\` is ledgered without a class; written \`${UNCLASSIFIED_TOOL_CLASS}\`, which never runs it again after an ambiguous failure: set \`read\` if it only reads`,
    );
  }
  const tasks = pairsOf(valueAt(root, 'tasks')).map(keyOf);
  for (const name of listed(root, 'task_ledger', 'tasks', 'tasks')) {
    if (tasks.includes(name) || entry(m, root, 'tasks', name) === undefined) continue;
    m.note(
      'added',
      `tasks.${name}`,
      null,
      `\`${name}\` is ledgered but had no entry under \`tasks\`; added with the task defaults (identity: a hash of the arguments)`,
    );
  }
}
