/**
 * `hyphae mcp` end to end over stdio: the SDK's client ↔ the proxy ↔ real servers.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { connectProxy, linesOf, SERVERS, SQLITE_LEDGER, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();

describe('hyphae mcp over stdio', () => {
  it('passes a read tool through and refuses a write tool that was not granted', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER, 'fuses: { permission: { granted: [read] } }');
    const effects = join(dir, 'effects.txt');
    const { client } = await connectProxy(dir, SERVERS.test, { config, env: { EFFECTS_FILE: effects } });

    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    const pay = await client.callTool({ name: 'pay', arguments: { amount: 5, to: 'bob' } });

    expect(textOf(echo)).toBe('hello');
    expect(pay.isError).toBe(true);
    expect(textOf(pay)).toContain('NOT executed');
    expect(textOf(pay)).toContain('`destructive`');
    expect(linesOf(effects)).toEqual([]);
  });
});
