/**
 * The `options` of an offline `query()`: the bundled Claude Code binary talks to the fake
 * Messages API only, its home and config live in a temp folder, and nothing non-essential
 * (telemetry, update checks, error reports) is sent. A proxy that refuses everything stands in
 * for the internet, so any attempt shows in the fake API's `connects`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface OfflineAgent {
  readonly cwd: string;
  readonly env: Record<string, string>;
  cleanup(): void;
}

export function offlineAgent(apiUrl: string): OfflineAgent {
  const home = mkdtempSync(join(tmpdir(), 'hyphae-claude-agent-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: home,
    CLAUDE_CONFIG_DIR: join(home, '.claude'),
    ANTHROPIC_BASE_URL: apiUrl,
    ANTHROPIC_API_KEY: 'sk-ant-test-offline',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_ERROR_REPORTING: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    HTTPS_PROXY: apiUrl,
    HTTP_PROXY: apiUrl,
    NO_PROXY: '127.0.0.1',
  };
  return {
    cwd: home,
    env,
    cleanup: () => rmSync(home, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }),
  };
}
