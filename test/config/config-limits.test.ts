import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadConfig } from '../../src/config/load-config.js';
import { DEFAULT_MAX_CONFIG_BYTES, parseConfig, validateConfig } from '../../src/config/parse-config.js';
import { parseDuration } from '../../src/config/schema/common-nodes.js';
import { InvalidArgumentError } from '../../src/invalid-argument.js';
import { MAX_DURATION_MS } from '../../src/option-checks.js';
import { issuesOf, LEDGER_HEADER, onlyIssue, settingsOf, useTempDir, yaml } from './helpers.js';

/** Nine anchors, each a list of nine aliases of the one before: 9^9 nodes once expanded. */
function aliasBomb(): string {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 9; i++)
    lines.push(
      `a${i}: &a${i} [${Array(9)
        .fill(`*a${i - 1}`)
        .join(', ')}]`,
    );
  return yaml(...lines);
}

/** A config of `count` tools, all valid. */
function manyTools(count: number): string {
  const lines = ['tools:'];
  for (let i = 0; i < count; i++) lines.push(`  tool_${i}:`, '    side_effect_class: read');
  return yaml(...lines);
}

describe('config input limits', () => {
  const tempDir = useTempDir();

  it('returns an alias bomb as an issue instead of throwing', () => {
    const result = validateConfig(aliasBomb());

    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toHaveLength(1);
    expect(result.issues[0]).toMatchObject({ path: '', line: 1, column: 1 });
    expect(result.issues[0]?.message).toMatch(/^YAML aliases expand too far/);
  });

  it('refuses an alias bomb in loadConfig with a ConfigError', async () => {
    await expect(loadConfig({ text: aliasBomb() })).rejects.toBeInstanceOf(ConfigError);
  });

  it('refuses a text over the size limit as one issue, and takes a higher limit', () => {
    const text = `${manyTools(1)}# ${'x'.repeat(DEFAULT_MAX_CONFIG_BYTES)}\n`;

    const issue = onlyIssue(text);
    expect(issue.message).toMatch(/^Config is \d+ bytes, more than the limit of 8388608/);
    expect(validateConfig(text, { maxBytes: Number.POSITIVE_INFINITY }).ok).toBe(true);
    expect(validateConfig(manyTools(3), { maxBytes: 64 }).ok).toBe(false);
  });

  it('counts UTF-8 bytes, not string length', () => {
    const text = yaml('# ééééé', 'tools: {}');

    expect(validateConfig(text, { maxBytes: text.length }).ok).toBe(false);
    expect(validateConfig(text, { maxBytes: Buffer.byteLength(text) }).ok).toBe(true);
  });

  it('refuses a config file over the limit without reading it', async () => {
    const path = join(tempDir(), 'hyphae.yaml');
    writeFileSync(path, manyTools(50));

    const error = await loadConfig(path, { maxBytes: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues[0]?.message).toMatch(/more than the limit of 100/);
    await expect(loadConfig(path)).resolves.toBeDefined();
  });

  it('refuses a limit it cannot enforce', () => {
    for (const maxBytes of [0, -1, 1.5, Number.NaN, '5']) {
      expect(() => validateConfig('{}', { maxBytes: maxBytes as number })).toThrow(InvalidArgumentError);
    }
  });

  it('still finds a duplicate key, nested or among thousands of keys, in one pass', () => {
    const text = `${manyTools(5_000)}  tool_17:\n    side_effect_class: read\n`;

    const issue = onlyIssue(text);
    expect(issue).toMatchObject({ path: '', line: 10_002, column: 3 });
    expect(issue.message).toBe('YAML syntax: Map keys must be unique; `tool_17` appears twice');
    const nested = onlyIssue(yaml('tools:', '  a:', '    lease_ttl: 1m', '    lease_ttl: 2m'));
    expect(nested).toMatchObject({ line: 4, column: 5 });
  });

  it('parses a config of many tools', () => {
    expect(Object.keys(settingsOf(manyTools(5_000)).tools)).toHaveLength(5_000);
  });
});

describe('config durations', () => {
  const withLease = (ttl: string): string => yaml(...LEDGER_HEADER, `  lease_ttl: ${ttl}`);
  const lease = (ttl: string): string =>
    yaml('transition:', '  agent_id: a', "  policy_version: '1'", `  lease_ttl: ${ttl}`);

  it('refuses a duration beyond the maximum', () => {
    for (const ttl of ['99999999999999d', '25d', `${MAX_DURATION_MS + 1}ms`]) {
      const issue = onlyIssue(lease(ttl));
      expect(issue.path).toBe('transition.lease_ttl');
      expect(issue.message).toMatch(/longer than the maximum, 2147483647 ms/);
    }
    expect(issuesOf(withLease('1e400d')).length).toBeGreaterThan(0);
  });

  it('accepts durations up to the maximum', () => {
    expect(settingsOf(lease('24d')).transition?.leaseTtlMs).toBe(24 * 86_400_000);
    expect(settingsOf(lease(`${MAX_DURATION_MS}ms`)).transition?.leaseTtlMs).toBe(MAX_DURATION_MS);
  });

  it('refuses a bare number, naming the units it could have meant', () => {
    // mycelium-runtime's `lease_ttl: 3600` is seconds; read as milliseconds it would be 3.6 s.
    const issue = onlyIssue(lease('3600'));
    expect(issue).toMatchObject({ path: 'transition.lease_ttl', line: 4 });
    expect(issue.message).toBe(
      'A duration needs its unit: `3600` could be milliseconds or seconds; write `3600ms`, `3600s`, `60m` or `1h`',
    );
    expect(onlyIssue(lease('2.5')).message).toContain('`2.5ms`, `2.5s`');
  });

  it('parseDuration reads only strings', () => {
    expect(parseDuration(5 as never)).toBeUndefined();
    expect(parseDuration('2m')).toBe(120_000);
  });
});

describe('config arguments', () => {
  it('refuses text that is not a string with InvalidArgumentError', async () => {
    for (const text of [5, null, undefined, {}]) {
      expect(() => validateConfig(text as never)).toThrow(expect.objectContaining({ code: 'invalid_argument' }));
      expect(() => parseConfig(text as never)).toThrow(InvalidArgumentError);
    }
    await expect(loadConfig({ text: 5 } as never)).rejects.toMatchObject({
      code: 'invalid_argument',
      argument: 'source.text',
    });
    await expect(loadConfig(null as never)).rejects.toMatchObject({ code: 'invalid_argument', argument: 'source' });
    await expect(loadConfig({ text: '{}' }, null as never)).rejects.toMatchObject({ code: 'invalid_argument' });
  });

  it('refuses options whose getters throw', () => {
    const options = {
      get env(): never {
        throw new Error('boom');
      },
    };
    expect(() => validateConfig('{}', options)).toThrow(
      expect.objectContaining({ code: 'invalid_argument', argument: 'options.env' }),
    );
  });
});
