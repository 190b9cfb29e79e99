/**
 * Per-tool and per-task sections of a mycelium-runtime config, converted in place. The legacy
 * per-tool style (`ledger: true`, or `ledger:` with its own store) becomes membership of
 * `action_ledger.tools` / `task_ledger.tasks`.
 */
import type { YAMLMap } from 'yaml';
import { convertSeconds, dropKey, dropOthers, isMapping } from './convert-values.js';
import { keyOf, type Migration, pairsOf, plain, renameKey, setKey, valueAt } from './migration-doc.js';

/** mycelium-runtime's default protect TTL, in seconds. */
const PROTECT_DEFAULT_TTL_S = 300;

const TOOL_KEYS = [
  'side_effect_class',
  'retry_permission',
  'spendability',
  'provider_idempotency_key_param',
  'provider_idempotency_key_ttl',
  'request_id_param',
  'identity',
  'bookkeeping_params',
  'capability',
  'lease_ttl',
  'on_args_drift',
  'permissions',
  'protect',
  'bounded',
];

const TASK_KEYS = [
  'side_effect_class',
  'retry_permission',
  'spendability',
  'provider_idempotency_key_param',
  'provider_idempotency_key_ttl',
  'bookkeeping_params',
  'lease_ttl',
  'id_from',
];

function toolKeyReason(key: string): string {
  switch (key) {
    case 'audit_receipt':
      return 'receipts cover every ledgered tool when `receipts` is configured';
    case 'side_effect_boundary':
      return 'a declared boundary default has no counterpart: the body marks its boundary with `sideEffect()`';
    case 'loop_guard':
      return 'loops are caught per run by `fuses.loop` (repeat threshold, cycles, per-tool `allowances`)';
    case 'budget_guard':
      return 'spend is capped per run by `fuses.budget`';
    case 'scope_guard':
      return 'granted scopes are `fuses.permission` with per-tool `permissions`';
    case 'callable':
      return 'tools are passed to `config.instrument`, not imported by path';
    default:
      return 'no counterpart in `tools.<name>`';
  }
}

/** Whether a legacy `ledger:` value turns the ledger on. */
function ledgerOn(m: Migration, map: YAMLMap, path: string, kind: 'tool' | 'task'): boolean {
  const value = valueAt(map, 'ledger');
  if (value === undefined) return false;
  if (isMapping(value) && valueAt(value, 'storage') !== undefined && m.perToolStores[kind] === undefined)
    m.perToolStores[kind] = value.toJSON() as Record<string, unknown>;
  const on = isMapping(value) || plain(value) === true;
  const idFrom = isMapping(value) ? valueAt(value, 'id_from') : undefined;
  if (idFrom !== undefined && valueAt(map, 'id_from') === undefined) setKey(m.doc, map, 'id_from', plain(idFrom));
  dropKey(
    m,
    map,
    'ledger',
    `${path}.ledger`,
    on
      ? isMapping(value) && pairsOf(value).some((p) => !['id_from'].includes(keyOf(p)))
        ? 'listed in the ledger section, whose store is the first per-tool store; one store serves every tool, so other per-tool stores are not carried'
        : 'listed in the ledger section instead'
      : 'off',
  );
  return on;
}

/** mycelium-runtime's field spec options and their spelling here (JSON Schema's). */
const FIELD_OPTIONS: Readonly<Record<string, string>> = { min_length: 'minLength', max_length: 'maxLength' };

/** Rename the snake_case options of one field, and of its `items` and `properties`. */
function migrateField(m: Migration, field: YAMLMap, path: string): void {
  for (const option of pairsOf(field)) {
    const renamed = FIELD_OPTIONS[keyOf(option)];
    if (renamed === undefined || valueAt(field, renamed) !== undefined) continue;
    m.note('converted', `${path}.${keyOf(option)}`, option.key, `written \`${renamed}\``);
    renameKey(option, renamed);
  }
  const items = valueAt(field, 'items');
  if (isMapping(items)) migrateField(m, items, `${path}.items`);
  migrateFieldSpec(m, valueAt(field, 'properties'), `${path}.properties`);
}

/** Rename the snake_case options of a field spec (mycelium-runtime's `min_length`), at every level. */
function migrateFieldSpec(m: Migration, spec: unknown, path: string): void {
  for (const field of pairsOf(spec))
    if (isMapping(field.value)) migrateField(m, field.value, `${path}.${keyOf(field)}`);
}

function migrateBounded(m: Migration, bounded: YAMLMap, path: string): void {
  migrateFieldSpec(m, valueAt(bounded, 'schema'), `${path}.bounded.schema`);
  const single = plain(valueAt(bounded, 'path_param'));
  if (typeof single === 'string' && valueAt(bounded, 'path_params') === undefined) {
    dropKey(m, bounded, 'path_param', `${path}.bounded.path_param`, `written \`path_params: [${single}]\``);
    setKey(m.doc, bounded, 'path_params', [single]);
  }
  const paths = valueAt(bounded, 'allowed_paths');
  if (paths !== undefined && valueAt(bounded, 'path_params') === undefined) {
    const schema = valueAt(bounded, 'schema');
    const names = pairsOf(schema)
      .map(keyOf)
      .filter((name) => /(^|_)(path|file|dir|directory|filename)s?$/i.test(name));
    if (names.length > 0) {
      setKey(m.doc, bounded, 'path_params', names, 'review: the arguments that hold a path');
      m.note(
        'added',
        `${path}.bounded.path_params`,
        null,
        `\`allowed_paths\` applies to the arguments named in \`path_params\`; guessed \`${names.join('`, `')}\` from the schema — review it`,
      );
    } else {
      dropKey(
        m,
        bounded,
        'allowed_paths',
        `${path}.bounded.allowed_paths`,
        '`allowed_paths` needs `path_params` (the arguments that hold a path) and none could be told from the schema: add `path_params: [<argument>]` and the list back',
      );
    }
  }
  dropOthers(
    m,
    bounded,
    ['schema', 'output_schema', 'allowed_paths', 'path_params', 'entity_pattern'],
    `${path}.bounded`,
    () => 'no counterpart in `bounded`',
  );
}

/** One tool; returns whether the legacy style turned its ledger on. */
export function migrateTool(m: Migration, name: string, map: YAMLMap): boolean {
  const path = `tools.${name}`;
  const ledgered = ledgerOn(m, map, path, 'tool');
  const request = pairsOf(map).find((p) => keyOf(p) === 'request_id_from');
  if (request !== undefined) {
    renameKey(request, 'request_id_param');
    m.note('converted', `${path}.request_id_from`, request.key, 'written `request_id_param`');
  }
  for (const key of ['provider_idempotency_key_ttl', 'lease_ttl'])
    if (!convertSeconds(m, map, key, `${path}.${key}`))
      dropKey(m, map, key, `${path}.${key}`, 'must be a positive duration here');
  if (isMapping(valueAt(map, 'protect')) && valueAt(valueAt(map, 'protect'), 'entity_param') === undefined)
    dropKey(
      m,
      map,
      'protect',
      `${path}.protect`,
      'mycelium-runtime cached one result per tool without `entity_param`; name the argument (`entity_param`), or key by the whole arguments in code (`protect({ byArguments: true, ttlMs })`)',
    );
  const protect = valueAt(map, 'protect');
  if (isMapping(protect) && valueAt(map, 'side_effect_class') === undefined) {
    setKey(m.doc, map, 'side_effect_class', 'read');
    m.note(
      'added',
      `${path}.side_effect_class`,
      null,
      '`protect` caches results, which only a `read` tool may do here: declared `read`',
    );
  }
  if (isMapping(protect)) {
    if (valueAt(protect, 'ttl') === undefined) {
      setKey(m.doc, protect, 'ttl', PROTECT_DEFAULT_TTL_S);
      m.note('added', `${path}.protect.ttl`, null, "mycelium-runtime's default TTL (300 seconds), written out");
    }
    convertSeconds(m, protect, 'ttl', `${path}.protect.ttl`);
    dropOthers(
      m,
      protect,
      ['entity_param', 'ttl', 'max_entries'],
      `${path}.protect`,
      () => 'no counterpart in `protect`',
    );
  }
  const capability = plain(valueAt(map, 'capability'));
  if (capability !== undefined && !['idempotent', 'queryable', 'blind'].includes(String(capability)))
    dropKey(m, map, 'capability', `${path}.capability`, 'must be `idempotent`, `queryable` or `blind`');
  const bounded = valueAt(map, 'bounded');
  if (isMapping(bounded)) migrateBounded(m, bounded, path);
  dropOthers(m, map, TOOL_KEYS, path, toolKeyReason);
  return ledgered;
}

/** One task; returns whether the legacy style turned its ledger on. */
export function migrateTask(m: Migration, name: string, map: YAMLMap): boolean {
  const path = `tasks.${name}`;
  const ledgered = ledgerOn(m, map, path, 'task');
  for (const key of ['provider_idempotency_key_ttl', 'lease_ttl'])
    if (!convertSeconds(m, map, key, `${path}.${key}`))
      dropKey(m, map, key, `${path}.${key}`, 'must be a positive duration here');
  dropOthers(m, map, TASK_KEYS, path, (key) =>
    key === 'audit_receipt'
      ? 'receipts cover every ledgered task when `receipts` is configured'
      : 'no counterpart in `tasks.<name>`',
  );
  return ledgered;
}
