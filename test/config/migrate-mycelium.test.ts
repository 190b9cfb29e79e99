import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load-config.js';
import { secondsToDuration } from '../../src/config/migrate/convert-values.js';
import { migrateMyceliumConfig } from '../../src/config/migrate/migrate-mycelium.js';
import { settingsOf, useTempDir, yaml } from './helpers.js';

/** The YAML examples of mycelium-runtime 1.10.1's README, read from the seed text as published. */
const SEED = readFileSync(new URL('../../../shared/seeds/001_4f7ad796bd1f61bf.txt', import.meta.url), 'utf8');
const EXAMPLES = [...SEED.matchAll(/```yaml\n([\s\S]*?)```/g)].map((match) => match[1] as string);
const tempDir = useTempDir();

const dropped = (text: string) =>
  migrateMyceliumConfig(text)
    .notes.filter((note) => note.kind === 'dropped')
    .map((note) => note.path);

describe('migrateMyceliumConfig on the mycelium-runtime README', () => {
  it('finds the three YAML examples of the README', () => {
    expect(EXAMPLES).toHaveLength(3);
  });

  it.each(EXAMPLES.map((text, i) => [i + 1, text] as const))(
    'converts example %i into a config that validates',
    (_, text) => {
      const { text: out, issues } = migrateMyceliumConfig(text);
      expect(issues).toEqual([]);
      expect(() => settingsOf(out)).not.toThrow();
      expect(out.split('\n')[0]).toBe('# yaml-language-server: $schema=./node_modules/hyphae/hyphae.schema.json');
    },
  );

  it('converts the full example into a config loadConfig opens, with the same tools, tasks and guards', async () => {
    const full = EXAMPLES.find((text) => text.includes('state_flush')) as string;
    const dir = tempDir();
    writeFileSync(join(dir, 'hyphae.yaml'), migrateMyceliumConfig(full).text);
    const config = await loadConfig('hyphae.yaml', { cwd: dir, env: { MYCELIUM_SIGNING_KEY: 'k'.repeat(48) } });
    try {
      const { settings } = config;
      expect(settings.transition).toMatchObject({
        agentId: 'payment-agent',
        policyVersion: '2026.07.1',
        leaseTtlMs: 3_600_000,
      });
      expect(Object.keys(settings.tools ?? {})).toEqual(['fetch_customer', 'send_payment', 'search_docs']);
      expect(settings.tools?.fetch_customer?.protect).toMatchObject({ entityParam: 'customer_id', ttlMs: 60_000 });
      expect(Object.keys(settings.tasks ?? {})).toEqual(['process_invoice']);
      expect(config.ledger).toBeDefined();
      expect(config.taskLedger).toBeDefined();
    } finally {
      await config.close();
    }
  });

  it('keeps mycelium-runtime’s history guard: warn at 90 %, refuse a turn repeated anywhere', async () => {
    const full = EXAMPLES.find((text) => text.includes('history_guard')) as string;
    const settings = settingsOf(migrateMyceliumConfig(full).text);
    expect(settings.historyGuard).toMatchObject({
      maxTokens: 100_000,
      warnAt: 0.9,
      duplicates: 'anywhere',
      onDuplicate: 'raise',
    });
  });

  it('keeps the comments of the keys it carries', () => {
    const out = migrateMyceliumConfig(EXAMPLES[0] as string).text;
    expect(out).toContain('# spendability defaults to single_use for keyed_mutate');
    expect(out).toContain('# spendability defaults to multi_use for read');
  });
});

describe('units', () => {
  it('writes seconds with the largest unit that divides them, never as a bare number', () => {
    expect([3600, 60, 90, 86_400, 0.25, 1.5].map(secondsToDuration)).toEqual([
      '1h',
      '1m',
      '90s',
      '1d',
      '250ms',
      '1500ms',
    ]);
  });

  it('converts every duration the README documents and says so', () => {
    const { text, notes } = migrateMyceliumConfig(
      yaml(
        'transition: {agent_id: a, policy_version: "1", lease_ttl: 3600, poll_timeout: 300}',
        'action_ledger: {storage: sqlite, path: l.db, tools: [pay, lookup]}',
        'tools:',
        '  pay: {side_effect_class: keyed_mutate, provider_idempotency_key_param: key, provider_idempotency_key_ttl: 600}',
        '  lookup: {side_effect_class: read, protect: {entity_param: id}}',
      ),
    );
    const settings = settingsOf(text);
    expect(settings.transition).toMatchObject({ leaseTtlMs: 3_600_000, pollTimeoutMs: 300_000 });
    expect(settings.tools?.pay).toMatchObject({ providerIdempotencyKeyTtlMs: 600_000 });
    // mycelium's default protect TTL is 300 seconds: written out, not left to another default.
    expect(settings.tools?.lookup?.protect).toMatchObject({ ttlMs: 300_000 });
    expect(notes.filter((n) => n.kind === 'converted').map((n) => n.path)).toEqual([
      'transition.lease_ttl',
      'transition.poll_timeout',
      'tools.pay.provider_idempotency_key_ttl',
      'tools.lookup.protect.ttl',
    ]);
  });

  it('writes a renewal interval of 0, mycelium-runtime’s renewal off, as `0s`', () => {
    const { notes, issues } = migrateMyceliumConfig(
      yaml('transition: {agent_id: a, policy_version: "1", lease_renew_interval: 0}'),
    );
    expect(issues).toEqual([]);
    expect(notes.find((n) => n.path === 'transition.lease_renew_interval')?.message).toContain('written `0s`');
  });
});

describe('stores', () => {
  it('carries redis and postgres addresses named by environment variable, and says what it leaves', () => {
    const { text, notes } = migrateMyceliumConfig(
      yaml(
        'transition: {agent_id: a, policy_version: "1"}',
        'action_ledger: {storage: redis, url_env: REDIS_URL, prefix: "mycelium:action:", in_flight_ttl: 604800, tools: []}',
        'task_ledger: {storage: postgres, dsn_env: PG_DSN, table: mycelium_task_ledger, tasks: []}',
      ),
    );
    expect(text).toContain('url_env: REDIS_URL');
    expect(text).toContain('dsn_env: PG_DSN');
    expect(notes.filter((n) => n.kind === 'dropped').map((n) => n.path)).toEqual([
      'action_ledger.prefix',
      'action_ledger.in_flight_ttl',
      'task_ledger.table',
    ]);
  });

  it('turns the legacy per-tool style into one action ledger on the first per-tool store', () => {
    const { text, notes, issues } = migrateMyceliumConfig(
      yaml(
        'tools:',
        '  send_payment:',
        '    side_effect_class: keyed_mutate',
        '    ledger: {storage: file, path: ./payments.json}',
        '  search_docs: {side_effect_class: read, ledger: true}',
      ),
    );
    expect(issues).toEqual([]);
    const settings = settingsOf(text);
    expect(settings.actionLedger?.tools).toEqual(['send_payment', 'search_docs']);
    expect(settings.actionLedger?.store).toMatchObject({ kind: 'sqlite', path: '/project/payments.db' });
    expect(notes.find((n) => n.path === 'transition')?.message).toContain('TODO');
  });
});

describe('keys it cannot carry', () => {
  it('reports each with the reason, at its line', () => {
    const text = yaml(
      'transition: {agent_id: a, policy_version: "1", scope_from: {thread_id: thread}}',
      'loop_guard: {consecutive_soft: 3}',
      'tools:',
      '  pay:',
      '    side_effect_class: keyed_mutate',
      '    side_effect_boundary: maybe_crossed',
    );
    const { notes } = migrateMyceliumConfig(text);
    const byPath = Object.fromEntries(notes.map((n) => [n.path, n]));
    expect(byPath['transition.scope_from']).toMatchObject({ kind: 'dropped', line: 1 });
    expect(byPath.loop_guard).toMatchObject({
      kind: 'dropped',
      line: 2,
      message: expect.stringContaining('fuses.loop'),
    });
    expect(byPath['tools.pay.side_effect_boundary']).toMatchObject({ kind: 'dropped', line: 6 });
    expect(dropped(text)).toEqual(['transition.scope_from', 'loop_guard', 'tools.pay.side_effect_boundary']);
  });
});

describe('the mycelium-runtime 1.34 keys', () => {
  it('carries the worker-death gate, its grace window in seconds, and tool capabilities', () => {
    const text = yaml(
      'transition:',
      '  agent_id: a',
      '  policy_version: "1"',
      '  lease_ttl: 600',
      '  reclaim_requires_death_signal: false',
      '  presumed_dead_after: 1800',
      'action_ledger: {storage: sqlite, path: ./ledger.db, tools: [pay, lookup]}',
      'tools:',
      '  pay: {side_effect_class: keyed_mutate, provider_idempotency_key_param: key, capability: queryable}',
      '  lookup: {side_effect_class: read, capability: blind}',
    );

    const { text: out, notes, issues } = migrateMyceliumConfig(text);
    const settings = settingsOf(out);

    expect(issues).toEqual([]);
    expect(dropped(text)).toEqual([]);
    expect(settings.transition).toMatchObject({ reclaimRequiresDeathSignal: false, presumedDeadAfterMs: 1_800_000 });
    expect(settings.tools.pay?.capability).toBe('queryable');
    expect(settings.tools.lookup?.capability).toBe('blind');
    expect(notes.find((n) => n.path === 'transition.presumed_dead_after')?.message).toContain('`30m`');
  });

  it("writes out mycelium-runtime's YAML default, `reclaim_requires_death_signal: true`, when the key is absent", () => {
    const { text: out, notes } = migrateMyceliumConfig(yaml('transition: {agent_id: a, policy_version: "1"}'));

    expect(settingsOf(out).transition?.reclaimRequiresDeathSignal).toBe(true);
    expect(notes.find((n) => n.path === 'transition.reclaim_requires_death_signal')).toMatchObject({ kind: 'added' });
  });

  it('drops a capability that is no capability, and the config refuses one looser than the class allows', () => {
    const unknown = migrateMyceliumConfig(yaml('tools:', '  pay: {side_effect_class: payment, capability: maybe}'));
    const loose = yaml(
      'transition: {agent_id: a, policy_version: "1"}',
      'action_ledger: {storage: memory, tools: [burn]}',
      'tools:',
      '  burn: {side_effect_class: onchain_action, capability: queryable}',
    );

    expect(dropped(yaml('tools:', '  pay: {side_effect_class: payment, capability: maybe}'))).toEqual([
      'tools.pay.capability',
    ]);
    expect(unknown.text).not.toContain('capability');
    expect(() => settingsOf(migrateMyceliumConfig(loose).text)).toThrow(/cannot declare capability `queryable`/);
  });

  it('ports allowed_paths by naming the path arguments, or says how to', () => {
    const guessed = migrateMyceliumConfig(
      yaml('tools:', '  read_file:', '    bounded: {schema: {path: {type: string}}, allowed_paths: [./ws]}'),
    );
    expect(settingsOf(guessed.text).tools?.read_file?.bounded).toMatchObject({ pathParams: ['path'] });
    const unknown = migrateMyceliumConfig(
      yaml('tools:', '  fetch:', '    bounded: {schema: {url: {type: string}}, allowed_paths: [./ws]}'),
    );
    expect(unknown.issues).toEqual([]);
    expect(unknown.notes.find((n) => n.path === 'tools.fetch.bounded.allowed_paths')?.message).toContain(
      'path_params: [<argument>]',
    );
  });

  it('refuses what is not a mycelium config', () => {
    expect(() => migrateMyceliumConfig('a: [1')).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(() => migrateMyceliumConfig('- 1\n')).toThrow(expect.objectContaining({ code: 'invalid_config' }));
    expect(() => migrateMyceliumConfig(5 as unknown as string)).toThrow(
      expect.objectContaining({ code: 'invalid_argument' }),
    );
  });
});

describe('migrateMyceliumConfig and the decision protocol', () => {
  it('needs no key for the protocol, and says which of its checks are not carried', () => {
    const { notes } = migrateMyceliumConfig(
      yaml('use_time_currency:', '  max_age: 60', 'authority_window:', '  required: true', 'completion: {}'),
    );
    const reason = (path: string) => notes.find((note) => note.kind === 'dropped' && note.path === path)?.message;

    for (const path of ['use_time_currency', 'authority_window'])
      expect(reason(path)).toMatch(/not supported by hyphae yet; the decision protocol is on for every ledgered call/);
    expect(reason('completion')).not.toContain('decision protocol');
  });
});
