import { readFileSync } from 'node:fs';
import { Ajv } from 'ajv';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { renderInitTemplate } from '../../src/cli/lib/init-templates.js';
import { configJsonSchema, configNode } from '../../src/config/schema/config-node.js';
import type { NodeIssue } from '../../src/config/schema/nodes.js';
import { LEDGER_HEADER, yaml } from './helpers.js';

const committed: unknown = JSON.parse(readFileSync(new URL('../../hyphae.schema.json', import.meta.url), 'utf8'));

/** The validator's verdict on structure alone (the cross-section rules are not in the JSON Schema). */
function structurallyValid(text: string): boolean {
  const issues: NodeIssue[] = [];
  configNode().check(parse(text) ?? {}, [], issues);
  return issues.length === 0;
}

const VALID = [
  renderInitTemplate('onramp', 'x'),
  renderInitTemplate('full', 'x'),
  renderInitTemplate('minimal', 'x'),
  yaml('task_ledger: { storage: redis, url: "redis://x" }', 'run_snapshots: { storage: memory }'),
  yaml('receipts: { algorithm: ed25519, key_file: k.pem, key_id: k }', 'registry: { allowed: [a, b] }'),
  yaml('transition: { agent_id: a, policy_version: 3, lease_ttl: 250ms }'),
  '',
];

const INVALID = [
  yaml('profile: staging'),
  yaml('histroy_guard: {}'),
  yaml(...LEDGER_HEADER, '  url: redis://x'),
  yaml('action_ledger: { storage: redis }'),
  yaml('action_ledger: { storage: redis, url: a, url_env: B }'),
  yaml('action_ledger: { path: x }'),
  yaml('transition: { agent_id: a, policy_version: 1, lease_ttl: 0s }'),
  yaml('transition: { agent_id: a, policy_version: 1, lease_ttl: 0 }'),
  yaml('transition: { agent_id: a, policy_version: 1.5 }'),
  yaml('transition: { agent_id: a }'),
  yaml('tools: { "9x": {} }'),
  yaml('tools: { a: { side_effect_class: raed } }'),
  yaml('tools: { a: { protect: { entity_param: id, ttl: 1m, max_entries: 0 } } }'),
  yaml('registry: { auto: false }'),
  yaml('registry: { auto: true, allowed: [] }'),
  yaml('receipts: { algorithm: hmac-sha256, key_id: k }'),
  yaml('history_guard: { warn_at: 0 }'),
  yaml('action_ledger: { storage: sqlite, path: x, tools: [1] }'),
];

describe('hyphae.schema.json', () => {
  it('is the schema the code defines (run `node scripts/write-config-schema.mjs` when this fails)', () => {
    expect(committed).toEqual(configJsonSchema());
  });

  it('compiles under Ajv strict mode as draft-07', () => {
    const ajv = new Ajv({ strict: true, allowUnionTypes: true, strictRequired: false });

    expect(() => ajv.compile(configJsonSchema())).not.toThrow();
  });

  it.each(VALID.map((text, i) => [i, text]))('accepts what the validator accepts (valid %i)', (_, text) => {
    const validate = new Ajv({ strict: false }).compile(configJsonSchema());

    expect(structurallyValid(text)).toBe(true);
    expect(validate(parse(text) ?? {}), JSON.stringify(validate.errors)).toBe(true);
  });

  it.each(INVALID.map((text, i) => [i, text]))('refuses what the validator refuses (invalid %i)', (_, text) => {
    const validate = new Ajv({ strict: false }).compile(configJsonSchema());

    expect(structurallyValid(text)).toBe(false);
    expect(validate(parse(text) ?? {})).toBe(false);
  });
});
