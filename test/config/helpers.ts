import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { ConfigIssue } from '../../src/config/errors.js';
import { validateConfig } from '../../src/config/parse-config.js';
import type { ConfigSettings } from '../../src/config/types.js';

/** Join lines into a YAML document (so line numbers in tests are easy to count). */
export function yaml(...lines: string[]): string {
  return `${lines.join('\n')}\n`;
}

/** The issues of a config text; fails the test when it is valid. */
export function issuesOf(text: string): readonly ConfigIssue[] {
  const result = validateConfig(text, { file: 'hyphae.yaml', baseDir: '/project' });
  if (result.ok) throw new Error('expected the config to be invalid');
  return result.issues;
}

/** The only issue of a config text. */
export function onlyIssue(text: string): ConfigIssue {
  const issues = issuesOf(text);
  if (issues.length !== 1) throw new Error(`expected one issue, got ${JSON.stringify(issues, null, 2)}`);
  return issues[0] as ConfigIssue;
}

/** The settings of a valid config text; fails the test with the issues otherwise. */
export function settingsOf(text: string, baseDir = '/project'): ConfigSettings {
  const result = validateConfig(text, { file: 'hyphae.yaml', baseDir });
  if (!result.ok) throw new Error(`expected a valid config, got ${JSON.stringify(result.issues, null, 2)}`);
  return result.value;
}

/** The header of a config with a SQLite action ledger. */
export const LEDGER_HEADER: readonly string[] = [
  'transition:',
  '  agent_id: agent',
  "  policy_version: '1'",
  'action_ledger:',
  '  storage: sqlite',
  '  path: .hyphae/ledger.db',
];

/** A fresh temp directory, removed after the test. */
export function useTempDir(): () => string {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 50 });
  });
  return () => {
    const dir = mkdtempSync(join(tmpdir(), 'hyphae-config-'));
    dirs.push(dir);
    return dir;
  };
}
