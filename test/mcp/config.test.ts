import { describe, expect, it } from 'vitest';
import { parseConfig, validateConfig } from '../../src/config/parse-config.js';

describe('the `mcp` section of hyphae.yaml', () => {
  it('parses to safe defaults', () => {
    const settings = parseConfig('mcp: {}\n', { baseDir: '/project' });

    expect(settings.mcp).toEqual({
      principal: 'default',
      session: 'default',
      retryWindowMs: 600_000,
      pinning: true,
      secrets: 'refuse',
      budget: {},
      cancel: 'finish',
      drainMs: 30_000,
      tools: {},
    });
  });

  it('parses per-tool policy, durations and paths relative to the file', () => {
    const settings = parseConfig(
      [
        'mcp:',
        '  principal: alice',
        '  allow: [read_file, pay]',
        '  retry_window: 30s',
        '  budget: { max_calls: 50, max_usd: 2.5 }',
        '  cooldown: 1h',
        '  cancel: forward',
        '  drain: 0s',
        '  tools:',
        '    read_file: { allowed_paths: [data], path_params: [path], secrets: redact }',
        '    pay: { side_effect_class: payment, permissions: [payments], approval: required, cost_usd: 0.1 }',
        '',
      ].join('\n'),
      { baseDir: '/project' },
    );

    expect(settings.mcp?.retryWindowMs).toBe(30_000);
    expect(settings.mcp?.budget).toEqual({ maxCalls: 50, maxUsd: 2.5 });
    expect(settings.mcp?.cooldownMs).toBe(3_600_000);
    expect([settings.mcp?.cancel, settings.mcp?.drainMs]).toEqual(['forward', 0]);
    expect(settings.mcp?.tools.read_file).toEqual({
      allowedPaths: ['/project/data'],
      pathParams: ['path'],
      secrets: 'redact',
    });
    // `payment` is an alias of the class it names.
    expect(settings.mcp?.tools.pay).toEqual({
      sideEffectClass: 'non_idempotent_mutate',
      permissions: ['payments'],
      approval: 'required',
      costUsd: 0.1,
    });
  });

  it('refuses an unknown key and a bad value with their place', () => {
    const result = validateConfig('mcp:\n  secrets: hide\n  alow: [x]\n', { file: 'hyphae.yaml', baseDir: '/project' });

    expect(result.ok).toBe(false);
    const messages = result.ok ? [] : result.issues.map((issue) => `${issue.line}:${issue.column} ${issue.message}`);
    expect(messages.some((m) => m.startsWith('2:') && m.includes('`refuse`'))).toBe(true);
    expect(messages.some((m) => m.startsWith('3:') && m.includes('allow'))).toBe(true);
  });
});
