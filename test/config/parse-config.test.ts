import { describe, expect, it } from 'vitest';
import { parseDuration } from '../../src/config/schema/common-nodes.js';
import { closest, editDistance } from '../../src/config/schema/did-you-mean.js';
import { issuesOf, LEDGER_HEADER, settingsOf, yaml } from './helpers.js';

describe('parsing a valid config', () => {
  it('applies defaults and resolves relative paths against the config directory', () => {
    const settings = settingsOf(
      yaml(...LEDGER_HEADER, 'tools:', '  pay: { side_effect_class: payment }'),
      '/srv/agent',
    );

    expect(settings).toEqual({
      profile: 'development',
      transition: {
        agentId: 'agent',
        policyVersion: '1',
        leaseTtlMs: 300_000,
        deferReadOnlyUnknown: false,
        reclaimRequiresDeathSignal: 'consequential',
      },
      actionLedger: {
        store: { kind: 'sqlite', path: '/srv/agent/.hyphae/ledger.db' },
        tools: 'all',
        onArgsDrift: 'soft',
      },
      tools: { pay: { sideEffectClass: 'non_idempotent_mutate' } },
      tasks: {},
    });
  });

  it('reads durations in ms, s, m, h and d', () => {
    const settings = settingsOf(
      yaml(
        'transition:',
        '  agent_id: 7',
        "  policy_version: '2026.07'",
        '  lease_ttl: 90s',
        '  poll_timeout: 1h',
        '  reconcile_timeout: 2500ms',
        '  lease_renew_interval: 0.5m',
        '  reclaim_requires_death_signal: true',
        '  presumed_dead_after: 20m',
      ),
    );

    expect(settings.transition).toEqual({
      agentId: '7',
      policyVersion: '2026.07',
      leaseTtlMs: 90_000,
      pollTimeoutMs: 3_600_000,
      reconcileTimeoutMs: 2500,
      leaseRenewIntervalMs: 30_000,
      deferReadOnlyUnknown: false,
      reclaimRequiresDeathSignal: true,
      presumedDeadAfterMs: 1_200_000,
    });
    expect([parseDuration('250ms'), parseDuration('1d'), parseDuration('5 m')]).toEqual([250, 86_400_000, undefined]);
  });

  it('keeps env names as names (read at load time) and resolves `registry.auto`', () => {
    const settings = settingsOf(
      yaml(
        'transition: { agent_id: a, policy_version: 1 }',
        'action_ledger: { storage: redis, url_env: REDIS_URL, prefix: "pay:" }',
        'task_ledger: { storage: postgres, dsn: "postgres://db/x", schema: agents }',
        'tools:',
        '  lookup: { side_effect_class: read_only }',
        '  pay: { side_effect_class: payment }',
        'registry: { auto: true }',
      ),
    );

    expect(settings.actionLedger?.store).toEqual({ kind: 'redis', url: { env: 'REDIS_URL' }, prefix: 'pay:' });
    expect(settings.taskLedger?.store).toEqual({
      kind: 'postgres',
      dsn: { value: 'postgres://db/x' },
      schema: 'agents',
    });
    expect(settings.registry).toEqual({ allowed: ['lookup', 'pay'], auto: true });
    expect(settings.tools.lookup?.sideEffectClass).toBe('read');
  });

  it('reads a Redis Cluster store with `wait_for_replicas`, and refuses a bad one at its key', () => {
    const settings = settingsOf(
      yaml(
        'transition: { agent_id: a, policy_version: 1 }',
        'action_ledger:',
        '  storage: redis',
        '  url: redis://10.0.0.1:6379,redis://10.0.0.2:6379',
        '  cluster: true',
        '  wait_for_replicas: { replicas: 2, timeout: 150ms }',
      ),
    );
    const bad = issuesOf(
      yaml(
        'transition: { agent_id: a, policy_version: 1 }',
        'action_ledger:',
        '  storage: redis',
        '  url: redis://10.0.0.1:6379',
        '  cluster: yes please',
        '  wait_for_replicas: { replicas: 0, timeout: 100 }',
      ),
    );
    const elsewhere = issuesOf(
      yaml(
        'transition: { agent_id: a, policy_version: 1 }',
        'action_ledger: { storage: sqlite, path: x.db, cluster: true }',
      ),
    );

    expect(settings.actionLedger?.store).toEqual({
      kind: 'redis',
      url: { value: 'redis://10.0.0.1:6379,redis://10.0.0.2:6379' },
      cluster: true,
      waitForReplicas: { replicas: 2, timeoutMs: 150 },
    });
    expect(bad.map((issue) => issue.path)).toEqual([
      'action_ledger.cluster',
      'action_ledger.wait_for_replicas.replicas',
      'action_ledger.wait_for_replicas.timeout',
    ]);
    expect(bad[2]?.message).toMatch(/^A duration needs its unit/);
    expect(elsewhere[0]?.message).toMatch(
      /`cluster` does not apply to storage `sqlite` \(it is a setting of `redis`\)/,
    );
  });

  it('maps every tool setting to the camelCase settings', () => {
    const settings = settingsOf(
      yaml(
        ...LEDGER_HEADER,
        'tools:',
        '  pay:',
        '    side_effect_class: keyed_mutate',
        '    retry_permission: never_retry_automatically',
        '    spendability: non_replayable',
        '    provider_idempotency_key_param: key',
        '    provider_idempotency_key_ttl: 0s',
        '    request_id_param: order_id',
        '    bookkeeping_params: [trace]',
        '    lease_ttl: 2m',
        '    on_args_drift: hard',
        '    boundary: body',
        '    bounded:',
        '      schema: { order_id: { type: string } }',
        '      allowed_paths: [./data]',
        '      path_params: [order_id]',
      ),
      '/srv',
    );

    expect(settings.tools.pay).toEqual({
      sideEffectClass: 'keyed_mutate',
      retryPermission: 'never_retry_automatically',
      spendability: 'non_replayable',
      providerIdempotencyKeyParam: 'key',
      providerIdempotencyKeyTtlMs: 0,
      requestIdParam: 'order_id',
      bookkeepingParams: ['trace'],
      leaseTtlMs: 120_000,
      onArgsDrift: 'hard',
      boundary: 'body',
      bounded: { schema: { order_id: { type: 'string' } }, allowedPaths: ['/srv/data'], pathParams: ['order_id'] },
    });
  });

  it('maps fuses, history guard and transcript settings', () => {
    const settings = settingsOf(
      yaml(
        'tools: { a: { permissions: [read] } }',
        'fuses:',
        '  permission: { granted: [read], max_denials: 2 }',
        '  loop: { repeat_threshold: 4, allowances: { poll: 9 }, retry_allowance: 1, terminal: false }',
        '  budget:',
        '    max_usd: 0.5',
        '    terminal: false',
        '    price: { input_per_1k: 0.001, output_per_1k: 0.002 }',
        '    prices: { m: { input_per_1k: 1, output_per_1k: 2, cache_write_input_per_1k: 3 } }',
        'history_guard: { max_messages: 40, duplicates: anywhere }',
        'transcript: { unanswered: drop }',
      ),
    );

    expect(settings.fuses).toEqual({
      permission: { granted: ['read'], maxDenials: 2 },
      loop: { repeatThreshold: 4, allowances: { poll: 9 }, retryAllowance: 1, terminal: false },
      budget: {
        maxUsd: 0.5,
        terminal: false,
        price: { inputPer1k: 0.001, outputPer1k: 0.002 },
        prices: { m: { inputPer1k: 1, outputPer1k: 2, cacheWriteInputPer1k: 3 } },
      },
    });
    expect(settings.historyGuard).toEqual({ maxMessages: 40, duplicates: 'anywhere', tokenizer: 'chars' });
    expect(settings.transcript).toEqual({ repair: true, unanswered: 'drop', validate: true });
  });

  it('reads an empty file as an empty config', () => {
    expect(settingsOf('')).toEqual({ profile: 'development', tools: {}, tasks: {} });
  });
});

describe('did you mean', () => {
  it('counts an adjacent swap as one edit', () => {
    expect([editDistance('raed', 'read'), editDistance('kitten', 'sitting'), editDistance('', 'abc')]).toEqual([
      1, 3, 3,
    ]);
  });

  it('hints only at names close enough to be a typo', () => {
    expect(closest('storag', ['storage', 'tools'])).toBe('storage');
    expect(closest('Max-Denials', ['max_denials'])).toBe('max_denials');
    expect(closest('colour', ['max_llm_retries', 'max_tool_retries'])).toBeUndefined();
  });
});
