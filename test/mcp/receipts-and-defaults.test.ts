/**
 * What the proxy leaves behind and what it does with no config: a signed receipt chain for the
 * ledgered calls (verified by `hyphae receipts verify`, no credential in it), and the safe defaults.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { connectProxy, linesOf, SERVERS, SQLITE_LEDGER, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();
const KEY = { HYPHAE_RECEIPT_KEY: 'r'.repeat(48) };
const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';

describe('receipts and defaults of hyphae mcp', () => {
  it('writes a verifiable receipt chain for ledgered calls, with no credential in it', async () => {
    const dir = tempDir();
    const config = writeConfig(
      dir,
      ...SQLITE_LEDGER,
      'receipts: { algorithm: hmac-sha256, key_env: HYPHAE_RECEIPT_KEY, key_id: k1, path: receipts.jsonl }',
      'fuses: { permission: { granted: [read, write, destructive] } }',
      'mcp: { secrets: redact }',
    );
    const effects = join(dir, 'effects.txt');
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { ...KEY, EFFECTS_FILE: effects } });

    await client.callTool({ name: 'pay', arguments: { amount: 1, to: 'acct_a' } });
    await client.callTool({ name: 'pay', arguments: { amount: 2, to: `acct ${TOKEN}` } });
    await client.close();
    const verified = hyphae(dir, ['receipts', 'verify', 'receipts.jsonl', '--key-env', 'HYPHAE_RECEIPT_KEY'], KEY);

    expect(linesOf(effects)).toHaveLength(2);
    // Each payment's receipt, and the receipt of its answer's delivery to the client (`mcp.delivered`).
    const actions = linesOf(join(dir, 'receipts.jsonl')).map((line) => (JSON.parse(line) as { action: string }).action);
    expect(actions.filter((action) => action === 'pay')).toHaveLength(2);
    expect(actions.filter((action) => action === 'mcp.delivered')).toHaveLength(2);
    expect(verified.code).toBe(0);
    expect(readFileSync(join(dir, 'receipts.jsonl'), 'utf8')).not.toContain(TOKEN);
  });

  it('runs without a config on the safe defaults: reads pass, writes are refused', async () => {
    const dir = tempDir();
    const effects = join(dir, 'effects.txt');
    // `--help` after `--` is the server's argument, not a request for hyphae's help.
    const { client, stderr } = await connectProxy(dir, [...SERVERS.test, '--help'], { env: { EFFECTS_FILE: effects } });

    const echo = await client.callTool({ name: 'echo', arguments: { text: 'no config' } });
    const pay = await client.callTool({ name: 'pay', arguments: { amount: 1, to: 'x' } });
    const leak = await client.callTool({ name: 'get_config', arguments: {} });

    expect(textOf(echo)).toBe('no config');
    expect(pay.isError).toBe(true);
    expect(textOf(pay)).toContain('NOT executed');
    expect(linesOf(effects)).toEqual([]);
    expect(textOf(leak)).not.toContain(TOKEN);
    expect(stderr()).toContain('no hyphae.yaml');
  });
});
