import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { settingsOf, useTempDir, yaml } from '../config/helpers.js';

const tempDir = useTempDir();
const MYCELIUM = yaml(
  '# payments agent',
  'transition:',
  '  agent_id: payment-agent',
  '  policy_version: "2026.07.1"',
  '  lease_ttl: 3600 # one hour',
  'action_ledger: {storage: file, path: ./ledger.json, tools: [send_payment]}',
  'tools:',
  '  send_payment: {side_effect_class: keyed_mutate, capability: blind, side_effect_boundary: not_crossed}',
);

describe('hyphae migrate', () => {
  it('writes the converted file and lists what it converted and what it could not carry', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'mycelium.yaml'), MYCELIUM);

    const { code, stderr } = hyphae(dir, ['migrate', 'mycelium.yaml', '-o', 'hyphae.yaml']);
    const text = readFileSync(join(dir, 'hyphae.yaml'), 'utf8');

    expect(code).toBe(0);
    expect(settingsOf(text, dir).transition).toMatchObject({ leaseTtlMs: 3_600_000 });
    expect(text).toContain('lease_ttl: 1h # one hour');
    expect(text).toContain('# payments agent');
    expect(stderr).toContain('Not carried (1):');
    expect(stderr).toContain('mycelium.yaml:8 `tools.send_payment.side_effect_boundary`');
    expect(settingsOf(text, dir).tools.send_payment?.capability).toBe('blind');
    expect(stderr).toContain('`transition.lease_ttl`: `3600` (seconds in mycelium-runtime) is written `1h`');
    expect(stderr).toContain('Wrote hyphae.yaml');
  });

  it('prints to standard output without -o, and refuses to overwrite without --force', () => {
    const dir = tempDir();
    writeFileSync(join(dir, 'mycelium.yaml'), MYCELIUM);
    writeFileSync(join(dir, 'hyphae.yaml'), 'existing\n');

    const printed = hyphae(dir, ['migrate', 'mycelium.yaml']);
    const refused = hyphae(dir, ['migrate', 'mycelium.yaml', '-o', 'hyphae.yaml']);
    const forced = hyphae(dir, ['migrate', 'mycelium.yaml', '-o', 'hyphae.yaml', '--force']);

    expect(printed.code).toBe(0);
    expect(printed.stdout).toContain('storage: sqlite');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('`hyphae.yaml` exists; pass `--force`');
    expect(forced.code).toBe(0);
    expect(readFileSync(join(dir, 'hyphae.yaml'), 'utf8')).toContain('path: ./ledger.db');
  });

  it('exits 1 with the problems when the result does not load, and 2 without a file', () => {
    const dir = tempDir();
    writeFileSync(
      join(dir, 'bad.yaml'),
      yaml('transition: {agent_id: a, policy_version: "1"}', 'tools:', '  t: {side_effect_class: raed}'),
    );

    const bad = hyphae(dir, ['migrate', 'bad.yaml']);
    const usage = hyphae(dir, ['migrate']);
    const missing = hyphae(dir, ['migrate', 'nope.yaml']);

    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('The converted config does not load (1 problem):');
    expect(bad.stderr).toContain('`tools.t.side_effect_class`');
    expect(usage.code).toBe(2);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read `nope.yaml`');
  });
});
