/**
 * `migrateMyceliumConfig`: a mycelium-runtime `mycelium.yaml` rewritten as a `hyphae.yaml`.
 *
 * The source document is edited in place, so the comments on every key that survives stay with it.
 * Units are converted explicitly (mycelium's seconds become durations with their unit), every key
 * that cannot be carried is reported with the reason, and the result is checked with
 * {@link validateConfig}: what the migration writes is a config that loads, or its issues are
 * returned beside it.
 */
import { type Pair, parseDocument, type YAMLMap } from 'yaml';
import { GuardError } from '../../errors.js';
import { InvalidArgumentError, kindOf } from '../../invalid-argument.js';
import type { ConfigIssue } from '../errors.js';
import { validateConfig } from '../parse-config.js';
import { configureLedgered } from './configure-ledgered.js';
import { dropOthers, isMapping } from './convert-values.js';
import {
  migrateAuditReceipt,
  migrateHistoryGuard,
  migrateLedger,
  migrateMessageValidator,
  migrateRegistry,
  migrateStateFlush,
  migrateTransition,
} from './migrate-sections.js';
import { migrateTask, migrateTool } from './migrate-tools.js';
import {
  keyOf,
  LineCounter,
  type Migration,
  type MigrationNote,
  newMap,
  pairsOf,
  plain,
  setKey,
  startMigration,
  valueAt,
} from './migration-doc.js';

export type { MigrationNote } from './migration-doc.js';

/** What {@link migrateMyceliumConfig} produced. */
export interface MyceliumMigration {
  /** The hyphae.yaml text. */
  readonly text: string;
  /** Every unit converted, key added and key not carried, in source order. */
  readonly notes: readonly MigrationNote[];
  /** What `validateConfig` says of `text`; empty when it loads. */
  readonly issues: readonly ConfigIssue[];
}

/** Options of {@link migrateMyceliumConfig}. */
export interface MigrateOptions {
  /** The source file's name, for messages. */
  readonly file?: string;
  /** Directory the converted file will live in (paths stay relative to it). */
  readonly baseDir?: string;
  /** The `$schema` line for editors; default the installed package's schema. */
  readonly schemaRef?: string;
}

/**
 * The decision protocol itself carries over with no key (it is always on, as in mycelium-runtime):
 * what is missing is these checks, whose verdicts it would record.
 */
const DECISION =
  'the decision protocol is on for every ledgered call and records the verdicts of the checks hyphae runs (see docs/ledger.md)';

const SECTION_REASONS: Readonly<Record<string, string>> = {
  loop_guard: 'loops are caught per run by `fuses.loop`',
  budget: 'spend is capped per run by `fuses.budget` (it prices model calls: set `price` or `prices`)',
  budget_guard: 'spend is capped per run by `fuses.budget`',
  scope_guard: 'granted scopes are `fuses.permission`',
  completion: 'completion contracts are not supported by hyphae yet',
  state_authority: 'state authority checks are not supported by hyphae yet',
  entity_guard: `entity guards are not supported by hyphae yet; \`bounded.entity_pattern\` checks entity ids; ${DECISION}`,
  destructive_confirm: `destructive-action confirmation is not supported by hyphae yet; ${DECISION}`,
  use_time_currency: `use-time currency checks are not supported by hyphae yet; ${DECISION}`,
  authority_window: `authority windows are not supported by hyphae yet; ${DECISION}`,
  outcomes: 'outcome emission is the ledger’s `onEvent` and its receipts',
  integrations: 'framework integrations are the adapters (`hyphae/langchain`, …), chosen in code',
};

function migrateSection(m: Migration, root: YAMLMap, pair: Pair, ledgered: { tools: string[]; tasks: string[] }): void {
  const key = keyOf(pair);
  const value = pair.value;
  switch (key) {
    case 'transition':
      if (isMapping(value)) migrateTransition(m, value);
      return;
    case 'action_ledger':
    case 'task_ledger':
      if (isMapping(value)) migrateLedger(m, value, key);
      return;
    case 'state_flush':
      migrateStateFlush(m, pair);
      return;
    case 'audit_receipt':
      migrateAuditReceipt(m, pair);
      return;
    case 'message_validator':
      migrateMessageValidator(m, root, pair);
      return;
    case 'history_guard':
      if (isMapping(value)) migrateHistoryGuard(m, value);
      return;
    case 'registry':
      if (isMapping(value)) migrateRegistry(m, value);
      return;
    case 'runner':
      if (isMapping(value))
        dropOthers(m, value, ['max_llm_retries', 'max_tool_retries'], 'runner', () => 'no counterpart in `runner`');
      return;
    case 'tools':
      for (const tool of pairsOf(value))
        if (isMapping(tool.value) && migrateTool(m, keyOf(tool), tool.value)) ledgered.tools.push(keyOf(tool));
      return;
    case 'tasks':
      for (const task of pairsOf(value))
        if (isMapping(task.value) && migrateTask(m, keyOf(task), task.value)) ledgered.tasks.push(keyOf(task));
      return;
    default:
      root.items.splice(root.items.indexOf(pair), 1);
      m.note('dropped', key, pair.key, SECTION_REASONS[key] ?? 'not a section mycelium-runtime documents');
  }
}

/** Legacy per-tool `ledger:` entries become the ledger section's list (made when missing). */
function coverLedgered(
  m: Migration,
  root: YAMLMap,
  section: 'action_ledger' | 'task_ledger',
  names: readonly string[],
): void {
  const listKey = section === 'action_ledger' ? 'tools' : 'tasks';
  let ledger = valueAt(root, section);
  if (!isMapping(ledger)) {
    if (names.length === 0) return;
    const store = m.perToolStores[section === 'action_ledger' ? 'tool' : 'task'];
    const { id_from: _idFrom, ...storeKeys } = store ?? {
      storage: 'sqlite',
      path: `.hyphae/${section === 'action_ledger' ? 'ledger' : 'tasks'}.db`,
    };
    setKey(m.doc, root, section, storeKeys);
    ledger = valueAt(root, section);
    if (isMapping(ledger)) migrateLedger(m, ledger, section);
    m.note(
      'added',
      section,
      null,
      `the per-${section === 'action_ledger' ? 'tool' : 'task'} ledgers become one \`${section}\``,
    );
  }
  const map = ledger as YAMLMap;
  const listed = plain(valueAt(map, listKey));
  // mycelium ledgers only what is listed or marked; here a missing list means "all", so write it.
  const current = Array.isArray(listed) ? listed.map(String) : listed === 'all' ? null : [];
  if (current === null) return;
  const merged = [...current, ...names.filter((name) => !current.includes(name))];
  if (merged.length === current.length && Array.isArray(listed)) return;
  setKey(m.doc, map, listKey, merged);
  if (names.some((name) => !current.includes(name)))
    m.note(
      'converted',
      `${section}.${listKey}`,
      null,
      `\`ledger: true\` on ${names.map((n) => `\`${n}\``).join(', ')} lists them here`,
    );
}

const AGENT_ID_COMMENT = 'TODO: part of every transition key';
const POLICY_VERSION_COMMENT = 'TODO: a new version starts new transitions';

function ensureTransition(m: Migration, root: YAMLMap): void {
  const existing = valueAt(root, 'transition');
  if (isMapping(existing)) {
    // A transition section without its identity does not load here; write a default for each.
    if (valueAt(existing, 'agent_id') === undefined) {
      setKey(m.doc, existing, 'agent_id', 'TODO-agent-id', AGENT_ID_COMMENT);
      m.note('added', 'transition.agent_id', null, 'a ledger needs `transition.agent_id`: fill in the TODO');
    }
    if (valueAt(existing, 'policy_version') === undefined) {
      setKey(m.doc, existing, 'policy_version', '1', POLICY_VERSION_COMMENT);
      m.note(
        'added',
        'transition.policy_version',
        null,
        'a ledger needs `transition.policy_version`: written `1`; bump it when a tool’s behaviour changes',
      );
    }
    return;
  }
  if (existing !== undefined) return;
  if (valueAt(root, 'action_ledger') === undefined && valueAt(root, 'task_ledger') === undefined) return;
  const transition = newMap();
  setKey(m.doc, transition, 'agent_id', 'TODO-agent-id', AGENT_ID_COMMENT);
  setKey(m.doc, transition, 'policy_version', '1', POLICY_VERSION_COMMENT);
  root.items.unshift(m.doc.createPair('transition', transition));
  m.note(
    'added',
    'transition',
    null,
    'a ledger needs `transition.agent_id` and `policy_version` (mycelium-runtime ran without them in its v1.2 mode): fill in the TODOs',
  );
}

/**
 * Convert a mycelium-runtime config text to a hyphae.yaml text.
 *
 * @example
 * const { text, notes, issues } = migrateMyceliumConfig(readFileSync('mycelium.yaml', 'utf8'));
 * for (const note of notes.filter((n) => n.kind === 'dropped')) console.log(note.path, note.message);
 */
export function migrateMyceliumConfig(source: string, options: MigrateOptions = {}): MyceliumMigration {
  if (typeof source !== 'string')
    throw new InvalidArgumentError('migrateMyceliumConfig', 'source', `must be YAML text, got ${kindOf(source)}`);
  const lines = new LineCounter();
  const doc = parseDocument(source, { lineCounter: lines, uniqueKeys: false });
  const file = options.file ?? 'mycelium.yaml';
  if (doc.errors.length > 0)
    throw new GuardError('invalid_config', `\`${file}\` is not valid YAML: ${doc.errors[0]?.message ?? ''}`);
  const root = doc.contents;
  if (!isMapping(root)) throw new GuardError('invalid_config', `\`${file}\` holds no mapping of sections`);
  const m = startMigration(doc, lines);
  const ledgered = { tools: [] as string[], tasks: [] as string[] };
  for (const pair of [...pairsOf(root)]) migrateSection(m, root, pair, ledgered);
  coverLedgered(m, root, 'action_ledger', ledgered.tools);
  coverLedgered(m, root, 'task_ledger', ledgered.tasks);
  configureLedgered(m, root);
  ensureTransition(m, root);
  const schema = options.schemaRef ?? './node_modules/hyphae/hyphae.schema.json';
  doc.commentBefore = ` yaml-language-server: $schema=${schema}\n Converted from ${file} by \`hyphae migrate\`.${doc.commentBefore ? `\n${doc.commentBefore}` : ''}`;
  const validate = (text: string) =>
    validateConfig(text, {
      file: 'hyphae.yaml',
      ...(options.baseDir === undefined ? {} : { baseDir: options.baseDir }),
    });
  let text = doc.toString({ lineWidth: 0 });
  let check = validate(text);
  // A ledger-only key on a tool no ledger covers did nothing in mycelium-runtime either; here it
  // is an error, so it is not carried (the validator knows which keys those are).
  const inert = check.ok ? [] : check.issues.filter((issue) => /has no effect: tool `/.test(issue.message));
  if (inert.length > 0) {
    for (const issue of inert) {
      const [section, tool, key] = issue.path.split('.');
      const map = valueAt(valueAt(root, section ?? ''), tool ?? '');
      if (isMapping(map) && key !== undefined) {
        map.delete(key);
        m.notes.push({
          path: issue.path,
          line: 0,
          kind: 'dropped',
          message: `${issue.message.replace(/ \(add it.*\)$/, '')}; add the tool to \`action_ledger.tools\` and the key back to keep it`,
        });
      }
    }
    text = doc.toString({ lineWidth: 0 });
    check = validate(text);
  }
  return { text, notes: m.notes, issues: check.ok ? [] : check.issues };
}
