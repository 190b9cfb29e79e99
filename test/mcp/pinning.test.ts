/**
 * Tool pinning end to end: a tool whose definition changes mid-session (a rug pull) is quarantined
 * — hidden and refused — until `hyphae mcp approve`, and a pin store that cannot be read hides
 * every tool.
 */
import { join } from 'node:path';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { hyphae } from '../config/cli-runner.js';
import { connectProxy, SERVERS, SQLITE_LEDGER, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();

function refusalCode(result: unknown): unknown {
  return (result as { _meta?: Record<string, { code?: unknown }> })._meta?.['io.hyphae/refusal']?.code;
}

describe('tool pinning', () => {
  it('quarantines a tool whose description changed until an operator approves it', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER);
    const { client, stderr } = await connectProxy(dir, SERVERS.test, { config });
    const names = async () => (await client.listTools()).tools.map((tool) => tool.name);
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve());
    });

    expect(await names()).toContain('forecast');
    expect(textOf(await client.callTool({ name: 'forecast', arguments: { city: 'Oslo' } }))).toBe('sunny in Oslo');
    await client.callTool({ name: 'flip', arguments: {} });
    await changed;

    const quarantined = await client.callTool({ name: 'forecast', arguments: { city: 'Rome' } });
    expect(await names()).not.toContain('forecast');
    expect(await names()).toContain('echo');
    expect(quarantined.isError).toBe(true);
    expect(refusalCode(quarantined)).toBe('mcp_tool_quarantined');
    expect(textOf(quarantined)).toContain('NOT executed');
    expect(stderr()).toContain('`forecast`');

    const approved = hyphae(dir, ['mcp', 'approve', 'forecast', '--server', 'hyphae-test-server', '--by', 'ops']);
    expect(approved.stderr).toBe('');
    expect(approved.code).toBe(0);

    const listed = (await client.listTools()).tools.find((tool) => tool.name === 'forecast');
    expect(listed?.description).toContain('~/.ssh/id_rsa');
    expect(textOf(await client.callTool({ name: 'forecast', arguments: { city: 'Rome' } }))).toBe('sunny in Rome');
  });

  it('keeps a rejected definition quarantined, and offers it for review no more', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER);
    const { client } = await connectProxy(dir, SERVERS.test, { config });
    const changed = new Promise<void>((resolve) => {
      client.setNotificationHandler(ToolListChangedNotificationSchema, async () => resolve());
    });
    await client.listTools();
    await client.callTool({ name: 'flip', arguments: {} });
    await changed;
    await client.listTools();

    const noReason = hyphae(dir, ['mcp', 'reject', 'forecast', '--server', 'hyphae-test-server', '--by', 'ops']);
    expect(noReason.code).toBe(2);
    const rejected = hyphae(dir, [
      'mcp',
      'reject',
      'forecast',
      '--server',
      'hyphae-test-server',
      '--by',
      'ops',
      '--reason',
      'asks for ssh keys',
    ]);
    expect(rejected.stderr).toBe('');
    expect(rejected.stdout).toContain('stays quarantined');

    expect((await client.listTools()).tools.map((tool) => tool.name)).not.toContain('forecast');
    const refused = await client.callTool({ name: 'forecast', arguments: { city: 'Rome' } });
    expect(refusalCode(refused)).toBe('mcp_tool_quarantined');
    expect(textOf(refused)).toContain('NOT executed');
    const again = hyphae(dir, ['mcp', 'approve', 'forecast', '--server', 'hyphae-test-server', '--by', 'ops']);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('no changed definition waiting for review');
  });

  it('refuses to approve a tool that has no changed definition', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER);
    const { client } = await connectProxy(dir, SERVERS.test, { config });
    await client.listTools();

    const result = hyphae(dir, ['mcp', 'approve', 'echo', '--server', 'hyphae-test-server', '--by', 'ops']);

    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no changed definition');
  });

  it('hides and refuses every tool when the pin store cannot be read', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, ...SQLITE_LEDGER);
    const first = await connectProxy(dir, SERVERS.test, { config });
    expect((await first.client.listTools()).tools.length).toBeGreaterThan(0);
    await first.close();
    const db = new Database(join(dir, 'ledger.db'));
    const table = (
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE '%transitions'").get() as {
        name: string;
      }
    ).name;
    const corrupted = db.prepare(`UPDATE "${table}" SET doc = '{not json' WHERE tool = 'mcp.pin'`).run().changes;
    db.close();

    const { client } = await connectProxy(dir, SERVERS.test, { config });
    const listed = await client.listTools();
    const echo = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });

    expect(corrupted).toBeGreaterThan(0);
    expect(listed.tools).toEqual([]);
    expect(echo.isError).toBe(true);
    expect(refusalCode(echo)).toBe('mcp_tool_pin_store_unavailable');
    expect(textOf(echo)).toContain('NOT executed');
  });
});
