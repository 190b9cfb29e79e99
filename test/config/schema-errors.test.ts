import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { parseConfig } from '../../src/config/parse-config.js';
import { issuesOf, LEDGER_HEADER, onlyIssue, yaml } from './helpers.js';

describe('config schema errors: unknown keys', () => {
  it('names an unknown top-level key with a "did you mean" hint, at the key', () => {
    const issue = onlyIssue(yaml('profile: development', 'histroy_guard:', '  max_messages: 10'));

    expect(issue).toEqual({
      path: 'histroy_guard',
      line: 2,
      column: 1,
      message: 'Unknown key `histroy_guard` (did you mean `history_guard`?)',
    });
  });

  it('hints at a nested key of a tool', () => {
    const issue = onlyIssue(yaml(...LEDGER_HEADER, 'tools:', '  send_payment:', '    side_efect_class: payment'));

    expect(issue).toEqual({
      path: 'tools.send_payment.side_efect_class',
      line: 9,
      column: 5,
      message: 'Unknown key `side_efect_class` (did you mean `side_effect_class`?)',
    });
  });

  it('lists the known keys when nothing is close', () => {
    const issue = onlyIssue(yaml('runner:', '  colour: blue'));

    expect(issue.path).toBe('runner.colour');
    expect(issue.message).toBe('Unknown key `colour` (expected one of `max_llm_retries`, `max_tool_retries`)');
    expect([issue.line, issue.column]).toEqual([2, 3]);
  });

  it('says which storage a store key belongs to', () => {
    const issue = onlyIssue(yaml(...LEDGER_HEADER, '  url_env: REDIS_URL'));

    expect(issue).toMatchObject({ path: 'action_ledger.url_env', line: 7, column: 3 });
    expect(issue.message).toBe('`url_env` does not apply to storage `sqlite` (it is a setting of `redis`)');
  });

  it('refuses a tool name that is not a name', () => {
    const issue = onlyIssue(yaml('tools:', '  "9 lives":', '    side_effect_class: read'));

    expect(issue).toMatchObject({ path: 'tools["9 lives"]', line: 2, column: 3 });
    expect(issue.message).toMatch(/^Name `9 lives` is not a name/);
  });
});

describe('config schema errors: values', () => {
  it('says what was expected for an enum, with a hint for a near miss', () => {
    const issue = onlyIssue(yaml(...LEDGER_HEADER, 'tools:', '  lookup:', '    side_effect_class: raed'));

    expect(issue).toMatchObject({ path: 'tools.lookup.side_effect_class', line: 9, column: 24 });
    expect(issue.message).toMatch(
      /^Expected one of `read`, `idempotent_mutate`, .* got `raed` \(did you mean `read`\?\)$/,
    );
    expect(issue.message).toContain('(or an alias: `read_only`');
  });

  it('names the expected type and what it got', () => {
    const issue = onlyIssue(yaml('runner:', '  max_llm_retries: many'));

    expect(issue).toEqual({
      path: 'runner.max_llm_retries',
      line: 2,
      column: 20,
      message: 'Expected an integer of at least 0, got `many`',
    });
  });

  it('refuses a zero lease, and a bare number', () => {
    const issues = issuesOf(yaml('transition:', '  agent_id: a', '  policy_version: 1', '  lease_ttl: 0s'));
    const numeric = issuesOf(yaml('transition:', '  agent_id: a', '  policy_version: 1', '  lease_ttl: 0'));

    expect(issues).toEqual([
      {
        path: 'transition.lease_ttl',
        line: 4,
        column: 14,
        message: 'Expected a duration greater than 0 with its unit, such as `30s`, `5m`, `1h` or `500ms`, got `0s`',
      },
    ]);
    expect(numeric[0]?.message).toMatch(/^A duration needs its unit: `0`/);
  });

  it('refuses a duration in an unknown unit', () => {
    const issue = onlyIssue(
      yaml(...LEDGER_HEADER, 'tools:', '  t:', '    side_effect_class: read', '    lease_ttl: 5 minutes'),
    );

    expect(issue).toMatchObject({ path: 'tools.t.lease_ttl', line: 10, column: 16 });
  });

  it('refuses a list where a coverage is `all` or a list of names, at the bad entry', () => {
    const issue = onlyIssue(
      yaml(...LEDGER_HEADER, '  tools: [send_payment, 42]', 'tools:', '  send_payment:', '    side_effect_class: read'),
    );

    expect(issue).toMatchObject({ path: 'action_ledger.tools[1]', line: 7, column: 25 });
    expect(issue.message).toMatch(/^Expected a name .* got `42`$/);
  });

  it('refuses a scalar where `all` or a list is expected', () => {
    const issue = onlyIssue(yaml(...LEDGER_HEADER, '  tools: some'));

    expect(issue.message).toMatch(/^Expected `all` or a list of names \(.*\), got `some`$/);
  });

  it('refuses a fractional version, which YAML would read as a number', () => {
    const issue = onlyIssue(yaml('transition:', '  agent_id: a', '  policy_version: 1.10'));

    expect(issue).toMatchObject({ path: 'transition.policy_version', line: 3, column: 19 });
    expect(issue.message).toBe(
      "Expected a non-empty string or an integer (quote versions such as `'1.10'`), got `1.1`",
    );
  });

  it('reports a missing required key at the mapping that lacks it', () => {
    const issue = onlyIssue(yaml('profile: development', 'transition:', '  agent_id: a'));

    expect(issue).toEqual({
      path: 'transition.policy_version',
      line: 2,
      column: 1,
      message: "Missing `policy_version` (expected a non-empty string or an integer (quote versions such as `'1.10'`))",
    });
  });

  it('needs a storage kind, and hints at a misspelt one', () => {
    const missing = onlyIssue(yaml('action_ledger:', '  path: x.db'));
    const misspelt = onlyIssue(yaml('action_ledger:', '  storage: sqlit'));

    expect(missing).toMatchObject({ path: 'action_ledger.storage', line: 1, column: 1 });
    expect(missing.message).toBe('Missing `storage` (expected one of `memory`, `sqlite`, `redis`, `postgres`)');
    expect(misspelt).toMatchObject({ path: 'action_ledger.storage', line: 2, column: 12 });
    expect(misspelt.message).toMatch(/got `sqlit` \(did you mean `sqlite`\?\)$/);
  });

  it('needs exactly one of `url` and `url_env`', () => {
    const none = onlyIssue(yaml('action_ledger:', '  storage: redis'));
    const both = onlyIssue(yaml('action_ledger:', '  storage: redis', '  url: redis://x', '  url_env: REDIS_URL'));

    expect(none).toMatchObject({ path: 'action_ledger', message: 'Give one of `url`, `url_env`', line: 2, column: 3 });
    expect(both).toMatchObject({ path: 'action_ledger.url_env', line: 4, column: 3 });
    expect(both.message).toBe('Give only one of `url`, `url_env` (both `url` and `url_env` are set)');
  });

  it('needs exactly one of `key`, `key_env` and `key_file` for receipts', () => {
    const issue = onlyIssue(yaml(...LEDGER_HEADER, 'receipts:', '  algorithm: hmac-sha256', '  key_id: k1'));

    expect(issue).toMatchObject({ path: 'receipts', message: 'Give one of `key`, `key_env`, `key_file`' });
  });

  it('reports every problem at once, in file order', () => {
    const issues = issuesOf(yaml('profile: staging', 'runner:', '  max_llm_retries: -1', 'fusez: {}'));

    expect(issues.map((issue) => [issue.path, issue.line])).toEqual([
      ['profile', 1],
      ['runner.max_llm_retries', 3],
      ['fusez', 4],
    ]);
  });
});

describe('config schema errors: YAML', () => {
  it('reports a syntax error with its line and column', () => {
    const issue = issuesOf(yaml('transition:', '  agent_id: [a', 'tools: {}'))[0];

    expect(issue?.path).toBe('');
    expect(issue?.message).toMatch(/^YAML syntax: /);
    expect(issue?.line).toBeGreaterThanOrEqual(2);
  });

  it('refuses a duplicate key', () => {
    const issue = onlyIssue(yaml('profile: development', 'profile: production'));

    expect(issue).toMatchObject({ line: 2, column: 1 });
    expect(issue.message).toMatch(/^YAML syntax: Map keys must be unique/);
  });

  it('throws ConfigError whose message lists file:line:column, key path and message', () => {
    const parse = () => parseConfig(yaml('profile: staging'), { file: 'hyphae.yaml' });

    expect(parse).toThrow(ConfigError);
    expect(parse).toThrow(
      'Invalid config `hyphae.yaml` (1 problem):\n  hyphae.yaml:1:10 `profile`: Expected one of `development`, `production`, got `staging`',
    );
  });
});
