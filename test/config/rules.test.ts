import { describe, expect, it } from 'vitest';
import { issuesOf, LEDGER_HEADER, onlyIssue, settingsOf, yaml } from './helpers.js';

describe('config rules: ledgers', () => {
  it('every ledgered tool declares `side_effect_class` (tools: all)', () => {
    const issue = onlyIssue(yaml(...LEDGER_HEADER, 'tools:', '  send_payment:', '    identity: intent'));

    expect(issue).toEqual({
      path: 'tools.send_payment',
      line: 8,
      column: 3,
      message: 'Tool `send_payment` is ledgered (`action_ledger.tools`) and must declare `side_effect_class`',
    });
  });

  it('a tool left out of a ledger list needs no class', () => {
    const settings = settingsOf(
      yaml(...LEDGER_HEADER, '  tools: [pay]', 'tools:', '  pay:', '    side_effect_class: payment', '  search: {}'),
    );

    expect(settings.tools.search).toEqual({});
  });

  it('a listed tool must be configured', () => {
    const issue = onlyIssue(yaml(...LEDGER_HEADER, '  tools: [send_paymnet]', 'tools: {}'));

    expect(issue).toMatchObject({ path: 'action_ledger.tools[0]', line: 7, column: 11 });
    expect(issue.message).toBe(
      'Tool `send_paymnet` is ledgered but not configured; add `tools.send_paymnet.side_effect_class`',
    );
  });

  it('a ledger needs a `transition` section', () => {
    const issue = onlyIssue(yaml('action_ledger:', '  storage: memory'));

    expect(issue).toEqual({
      path: 'action_ledger',
      line: 1,
      column: 1,
      message: '`action_ledger` needs a `transition` section (with `agent_id` and `policy_version`)',
    });
  });

  it('a task ledger sharing the action store needs an action ledger', () => {
    const issues = issuesOf(yaml('transition: { agent_id: a, policy_version: 1 }', 'task_ledger: {}'));

    expect(issues.map((i) => i.message)).toEqual([
      "`task_ledger` shares the action ledger's store, but there is no `action_ledger`; give it a `storage`",
    ]);
  });

  it('ledger-only settings on a tool no ledger covers are refused as having no effect', () => {
    const issue = onlyIssue(
      yaml(...LEDGER_HEADER, '  tools: []', 'tools:', '  search:', '    side_effect_class: read', '    lease_ttl: 1m'),
    );

    expect(issue).toMatchObject({ path: 'tools.search.lease_ttl', line: 11, column: 5 });
    expect(issue.message).toBe(
      '`lease_ttl` has no effect: tool `search` is not ledgered (add it to `action_ledger.tools`)',
    );
  });

  it('`identity: intent` and `request_id_param` conflict', () => {
    const issue = onlyIssue(
      yaml(
        ...LEDGER_HEADER,
        'tools:',
        '  pay:',
        '    side_effect_class: payment',
        '    identity: intent',
        '    request_id_param: order_id',
      ),
    );

    expect(issue).toMatchObject({ path: 'tools.pay.request_id_param', line: 11, column: 5 });
  });

  it('a provider key window needs the provider key parameter', () => {
    const issue = onlyIssue(
      yaml(
        ...LEDGER_HEADER,
        'tools:',
        '  pay:',
        '    side_effect_class: payment',
        '    provider_idempotency_key_ttl: 10m',
      ),
    );

    expect(issue.message).toBe('`provider_idempotency_key_ttl` needs `provider_idempotency_key_param`');
  });

  it('tasks listed in a task ledger must be configured, and names are tools or tasks, not both', () => {
    const issues = issuesOf(
      yaml(
        ...LEDGER_HEADER,
        'task_ledger:',
        '  tasks: [invoice]',
        'tools:',
        '  pay: { side_effect_class: payment }',
        'tasks:',
        '  pay: {}',
      ),
    );

    expect(issues.map((i) => [i.path, i.line, i.message])).toEqual([
      ['task_ledger.tasks[0]', 8, 'Task `invoice` is ledgered but not configured under `tasks`'],
      ['tasks.pay', 12, '`pay` is configured both as a tool and as a task'],
    ]);
  });
});

describe('config rules: production profile', () => {
  it('requires an explicit request identity for consequential tools', () => {
    const text = yaml(
      'profile: production',
      ...LEDGER_HEADER,
      'tools:',
      '  send_payment: { side_effect_class: payment }',
      '  send_email: { side_effect_class: email, identity: call }',
      '  mint: { side_effect_class: onchain_action, request_id_param: mint_id }',
      '  refund: { side_effect_class: idempotent_mutate }',
    );

    expect(issuesOf(text)).toEqual([
      {
        path: 'tools.send_payment',
        line: 9,
        column: 3,
        message:
          'The production profile needs an explicit request identity for `send_payment` (`non_idempotent_mutate`): set `identity: intent` or `request_id_param: <argument>`',
      },
      expect.objectContaining({ path: 'tools.send_email', line: 10 }),
    ]);
  });

  it('refuses a signing key written in the file', () => {
    const issue = onlyIssue(
      yaml(
        'profile: production',
        ...LEDGER_HEADER,
        'receipts:',
        '  algorithm: hmac-sha256',
        '  key: secret',
        '  key_id: k1',
      ),
    );

    expect(issue).toMatchObject({ path: 'receipts.key', line: 10, column: 3 });
    expect(issue.message).toBe(
      'The production profile refuses a signing key written in the file; use `key_env` or `key_file`',
    );
  });

  it('accepts the same config in development', () => {
    const settings = settingsOf(yaml(...LEDGER_HEADER, 'tools:', '  send_payment: { side_effect_class: payment }'));

    expect(settings.tools.send_payment?.sideEffectClass).toBe('non_idempotent_mutate');
  });
});

describe('config rules: guards', () => {
  it('caches only read tools', () => {
    const issue = onlyIssue(
      yaml(
        'tools:',
        '  pay:',
        '    side_effect_class: payment',
        '    protect: { entity_param: id, ttl: 1m, max_entries: 5 }',
      ),
    );

    expect(issue).toMatchObject({ path: 'tools.pay.protect', line: 4, column: 5 });
    expect(issue.message).toBe(
      '`protect` caches results, so only `read` tools may use it (`pay` is `non_idempotent_mutate`)',
    );
  });

  it('permissions need the permission fuse', () => {
    const issue = onlyIssue(yaml('tools:', '  pay: { permissions: [spend] }'));

    expect(issue).toMatchObject({
      path: 'tools.pay.permissions',
      message: '`permissions` has no effect without `fuses.permission`',
    });
  });

  it('a dollar ceiling needs prices (or non-strict pricing)', () => {
    const issue = onlyIssue(yaml('fuses:', '  budget:', '    max_usd: 1'));
    const relaxed = settingsOf(yaml('fuses:', '  budget:', '    max_usd: 1', '    strict_pricing: false'));

    expect(issue).toMatchObject({ path: 'fuses.budget.max_usd', line: 3, column: 5 });
    expect(relaxed.fuses?.budget).toEqual({ maxUsd: 1, strictPricing: false });
  });

  it('a runner needs a registry', () => {
    expect(onlyIssue(yaml('runner: { max_llm_retries: 1 }')).message).toBe(
      '`runner` needs a `registry` (the tools it may call)',
    );
  });

  it('receipts need a ledger, and a path unless the ledger store is SQL', () => {
    const issues = issuesOf(yaml('receipts:', '  algorithm: ed25519', '  key_file: k.pem', '  key_id: k1'));

    expect(issues.map((i) => i.message)).toEqual([
      '`receipts` has no effect without `action_ledger` or `task_ledger`',
      'Receipts need a `path` (a JSONL file) unless the action ledger is on `sqlite` or `postgres`',
    ]);
  });

  it('points into a bounded schema that does not compile', () => {
    const issue = onlyIssue(
      yaml('tools:', '  lookup:', '    bounded:', '      schema:', '        id: { type: string, min: 1 }'),
    );

    expect(issue).toMatchObject({ path: 'tools.lookup.bounded.schema.id', line: 5, column: 13 });
    expect(issue.message).toBe('Invalid schema: unknown option `min` on this `string` field');
  });

  it('reports what `bounded` refuses at the option', () => {
    const issue = onlyIssue(
      yaml(
        'tools:',
        '  read_file:',
        '    bounded:',
        '      schema: { path: { type: string } }',
        '      path_params: [path]',
      ),
    );

    expect(issue).toMatchObject({ path: 'tools.read_file.bounded.path_params', line: 5, column: 20 });
    expect(issue.message).toBe('needs `allowedPaths` (the roots the paths must stay inside)');
  });
});
