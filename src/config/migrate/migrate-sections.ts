/**
 * The global sections of a mycelium-runtime config, converted in place: `transition`, the two
 * ledgers, `state_flush`, `audit_receipt`, `message_validator`, `history_guard` and `registry`.
 */
import type { Pair, YAMLMap } from 'yaml';
import { convertSeconds, convertStore, dropKey, dropOthers, isMapping } from './convert-values.js';
import { keyOf, type Migration, newMap, pairsOf, plain, renameKey, setKey } from './migration-doc.js';

/** `transition`: identity and timing; mycelium's seconds become durations. */
export function migrateTransition(m: Migration, map: YAMLMap): void {
  for (const key of ['lease_ttl', 'poll_timeout', 'reconcile_timeout', 'presumed_dead_after']) {
    if (!convertSeconds(m, map, key, `transition.${key}`))
      dropKey(m, map, key, `transition.${key}`, 'must be a positive duration here');
  }
  if (!convertSeconds(m, map, 'lease_renew_interval', 'transition.lease_renew_interval')) {
    // mycelium-runtime turns renewal off with a value ≤ 0; here that is `0s`.
    const node = map.get('lease_renew_interval', true);
    setKey(m.doc, map, 'lease_renew_interval', '0s');
    m.note(
      'converted',
      'transition.lease_renew_interval',
      node,
      'renewal off (≤ 0 in mycelium-runtime) is written `0s`',
    );
  }
  migrateDeathSignal(m, map);
  dropOthers(
    m,
    map,
    [
      'agent_id',
      'policy_version',
      'lease_ttl',
      'lease_renew_interval',
      'poll_timeout',
      'reconcile_timeout',
      'defer_read_only_unknown',
      'reclaim_requires_death_signal',
      'presumed_dead_after',
    ],
    'transition',
    (key) => {
      switch (key) {
        case 'poll_interval':
          return 'polling starts at 25 ms and backs off to 1 s; the YAML does not set it';
        case 'scope_from':
          return 'the scope (thread, run, node) is passed to `config.run`, not read from arguments';
        default:
          return 'no counterpart in `transition`';
      }
    },
  );
}

/**
 * `reclaim_requires_death_signal`: a boolean, carried as is. mycelium-runtime's YAML turns the gate
 * on for every class when the key is absent; that default is written out, since hyphae's own covers
 * only the consequential classes.
 */
function migrateDeathSignal(m: Migration, map: YAMLMap): void {
  const pair = pairsOf(map).find((p) => keyOf(p) === 'reclaim_requires_death_signal');
  if (pair === undefined) {
    setKey(m.doc, map, 'reclaim_requires_death_signal', true);
    m.note(
      'added',
      'transition.reclaim_requires_death_signal',
      null,
      "mycelium-runtime's YAML default (`true`: every class waits for worker-death evidence), written out; hyphae's own default, `consequential`, covers `keyed_mutate`, `non_idempotent_mutate` and `irreversible`",
    );
    return;
  }
  if (typeof plain(pair.value) !== 'boolean') {
    dropKey(
      m,
      map,
      'reclaim_requires_death_signal',
      'transition.reclaim_requires_death_signal',
      'must be `true` or `false`',
    );
  }
}

/** `action_ledger` / `task_ledger`: the store, and which tools or tasks it covers. */
export function migrateLedger(m: Migration, map: YAMLMap, section: 'action_ledger' | 'task_ledger'): void {
  if (section === 'task_ledger' && !convertSeconds(m, map, 'lease_ttl', 'task_ledger.lease_ttl'))
    dropKey(m, map, 'lease_ttl', 'task_ledger.lease_ttl', 'must be a positive duration here');
  const others = section === 'action_ledger' ? ['tools', 'on_args_drift'] : ['tasks', 'lease_ttl'];
  convertStore(m, map, section, ['memory', 'sqlite', 'redis', 'postgres'], others);
}

/** `state_flush` → `run_snapshots`. */
export function migrateStateFlush(m: Migration, pair: Pair): void {
  renameKey(pair, 'run_snapshots');
  m.note('converted', 'state_flush', pair.key, '`state_flush` becomes `run_snapshots` (a history of states per run)');
  const map = pair.value;
  if (!isMapping(map)) return;
  convertStore(m, map, 'state_flush', ['memory', 'sqlite'], []);
}

/** `audit_receipt` → `receipts`, signed with HMAC-SHA256 by the same key. */
export function migrateAuditReceipt(m: Migration, pair: Pair): void {
  renameKey(pair, 'receipts');
  const map = pair.value;
  if (!isMapping(map)) return;
  m.note('converted', 'audit_receipt', pair.key, '`audit_receipt` becomes `receipts`, signed with `hmac-sha256`');
  const items = pairsOf(map);
  const env = items.find((p) => keyOf(p) === 'signing_key_env');
  const inline = items.find((p) => keyOf(p) === 'signing_key');
  if (env !== undefined) renameKey(env, 'key_env');
  if (inline !== undefined) {
    renameKey(inline, 'key');
    m.note(
      'converted',
      'audit_receipt.signing_key',
      inline.key,
      'a key written in the file is refused by `profile: production`; prefer `key_env`',
    );
  }
  const storage = plain(map.get('storage', true));
  const path = plain(map.get('path', true));
  dropKey(
    m,
    map,
    'storage',
    'audit_receipt.storage',
    storage === 'file'
      ? 'a `path` is a JSONL file here'
      : 'without `path`, receipts go to a table in the action ledger’s SQLite or PostgreSQL store',
  );
  if (storage !== 'file' && path !== undefined)
    dropKey(m, map, 'path', 'audit_receipt.path', 'only a file store has a path');
  const envName = typeof plain(env?.value) === 'string' ? String(plain(env?.value)) : 'receipts';
  setKey(m.doc, map, 'algorithm', 'hmac-sha256');
  setKey(
    m.doc,
    map,
    'key_id',
    envName.toLowerCase().replaceAll('_', '-'),
    'written into every receipt; any name that tells verifiers which key',
  );
  m.note('added', 'receipts.key_id', null, 'receipts name their key; the key itself must hold at least 32 bytes');
  dropOthers(m, map, ['key', 'key_env', 'key_file', 'key_id', 'algorithm', 'path'], 'audit_receipt', (key) =>
    key === 'agent_id'
      ? 'receipts carry `transition.agent_id`'
      : key === 'auto'
        ? 'every ledgered tool and task gets receipts when `receipts` is configured'
        : 'no counterpart in `receipts`',
  );
}

/** `message_validator` → `transcript` (repair, then validate). */
export function migrateMessageValidator(m: Migration, root: YAMLMap, pair: Pair): void {
  const value = pair.value;
  const enabled = isMapping(value) ? plain(value.get('enabled', true)) !== false : plain(value) === true;
  const index = (root.items as Pair[]).indexOf(pair);
  if (!enabled) {
    (root.items as Pair[]).splice(index, 1);
    m.note('dropped', 'message_validator', pair.key, 'turned off in the source; `transcript` left out');
    return;
  }
  const transcript = newMap();
  setKey(m.doc, transcript, 'repair', true);
  setKey(m.doc, transcript, 'validate', true);
  renameKey(pair, 'transcript');
  pair.value = transcript;
  m.note(
    'converted',
    'message_validator',
    pair.key,
    '`message_validator` becomes `transcript` (repair, then validate)',
  );
}

/** `history_guard`: mycelium's defaults written out where they differ. */
export function migrateHistoryGuard(m: Migration, map: YAMLMap): void {
  const detect = plain(map.get('detect_duplicates', true));
  if (detect !== undefined)
    dropKey(
      m,
      map,
      'detect_duplicates',
      'history_guard.detect_duplicates',
      'written as `duplicates` and `on_duplicate`',
    );
  if (detect === false) setKey(m.doc, map, 'duplicates', 'off');
  else {
    // mycelium-runtime raises on a turn repeated anywhere, by default.
    setKey(m.doc, map, 'duplicates', 'anywhere');
    setKey(m.doc, map, 'on_duplicate', 'raise');
    m.note(
      'added',
      'history_guard.on_duplicate',
      null,
      'mycelium-runtime refuses a history with a turn repeated anywhere: `duplicates: anywhere`, `on_duplicate: raise`',
    );
  }
  if (plain(map.get('warn_at', true)) === undefined) {
    setKey(m.doc, map, 'warn_at', 0.9, "mycelium-runtime's default");
    m.note(
      'added',
      'history_guard.warn_at',
      null,
      'mycelium-runtime warns at 90 % by default (hyphae at 80 %); kept at 0.9',
    );
  }
  dropOthers(
    m,
    map,
    ['max_tokens', 'max_messages', 'warn_at', 'duplicates', 'on_duplicate', 'model', 'tokenizer'],
    'history_guard',
    () => 'no counterpart in `history_guard`',
  );
}

/** `registry`: `auto` and `allowed` mean the same here. */
export function migrateRegistry(m: Migration, map: YAMLMap): void {
  if (plain(map.get('auto', true)) === false) dropKey(m, map, 'auto', 'registry.auto', '`auto: false` is the default');
  dropOthers(m, map, ['auto', 'allowed'], 'registry', () => 'no counterpart in `registry`');
}
