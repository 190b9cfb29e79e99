/**
 * Secret scanning end to end: a credential in a call's arguments or in its result is refused or
 * redacted, and never reaches the ledger's store or the proxy's log.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectProxy, linesOf, SERVERS, SQLITE_LEDGER, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();
const TOKEN = 'ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
const AWS_KEY = 'AKIAIOSFODNN7EXAMPLE';

function refusalCode(result: unknown): unknown {
  return (result as { _meta?: Record<string, { code?: unknown }> })._meta?.['io.hyphae/refusal']?.code;
}

describe('secret scanning', () => {
  it('withholds a result that holds a credential, and redacts it where the policy says so', async () => {
    const dir = tempDir();
    const refusing = await connectProxy(dir, SERVERS.test, { config: writeConfig(dir, ...SQLITE_LEDGER) });
    const withheld = await refusing.client.callTool({ name: 'get_config', arguments: {} });
    await refusing.close();
    const redactDir = tempDir();
    const redacting = await connectProxy(redactDir, SERVERS.test, {
      config: writeConfig(redactDir, ...SQLITE_LEDGER, 'mcp: { tools: { get_config: { secrets: redact } } }'),
    });
    const redacted = await redacting.client.callTool({ name: 'get_config', arguments: {} });

    expect(withheld.isError).toBe(true);
    expect(textOf(withheld)).toContain('github_token');
    expect(textOf(withheld)).not.toContain(TOKEN);
    expect(textOf(redacted)).toBe('region=eu-west-1\ntoken=[REDACTED:github_token]\n');
    expect(refusing.stderr()).not.toContain(TOKEN);
  });

  it('refuses a call whose arguments hold a credential before the server sees it', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, 'fuses: { permission: { granted: [read, write, destructive] } }');
    const effects = join(dir, 'effects.txt');
    const { client, stderr } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });

    const pay = await client.callTool({ name: 'pay', arguments: { amount: 3, to: `memo ${AWS_KEY}` } });

    expect(pay.isError).toBe(true);
    expect(refusalCode(pay)).toBe('secret_in_arguments');
    expect(textOf(pay)).toContain('NOT executed');
    expect(linesOf(effects)).toEqual([]);
    expect(stderr()).toContain('aws_access_key_id');
    expect(stderr()).not.toContain(AWS_KEY);
  });

  it('redacts a credential in the arguments of a side-effecting call, and keeps it out of the ledger', async () => {
    const dir = tempDir();
    const config = writeConfig(
      dir,
      ...SQLITE_LEDGER,
      'fuses: { permission: { granted: [read, write, destructive] } }',
      'mcp: { secrets: redact }',
    );
    const effects = join(dir, 'effects.txt');
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });

    const pay = await client.callTool({ name: 'pay', arguments: { amount: 3, to: `acct ${TOKEN}` } });
    await client.close();

    expect(pay.isError).not.toBe(true);
    expect(linesOf(effects)).toEqual(['pay_1 3 acct [REDACTED:github_token]']);
    const stored = readFileSync(join(dir, 'ledger.db')).toString('latin1');
    const wal = linesOf(join(dir, 'ledger.db-wal')).join('\n');
    expect(stored + wal).not.toContain(TOKEN);
    expect(stored + wal).toContain('REDACTED:github_token');
  });
});
