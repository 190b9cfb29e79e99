/**
 * What `hyphae mcp` tells its operator about a tool listing: the tools it refuses for want of a
 * granted scope with the config line that grants them, and its hidden tools once per change.
 */
import { describe, expect, it } from 'vitest';
import { connectProxy, SERVERS, stderrShows, textOf, useTempDirs, writeConfig } from './helpers.js';

const tempDir = useTempDirs();
const GRANT = 'put this line in hyphae.yaml';

describe('hyphae mcp startup messages', () => {
  it('names the tools refused for want of a scope, and the line that grants them works', async () => {
    const bare = await connectProxy(tempDir(), SERVERS.schemas);

    const stderr = await stderrShows(bare, GRANT);
    const line = stderr.split('\n')[stderr.split('\n').findIndex((l) => l.includes(GRANT)) + 1]?.trim() ?? '';
    const refused = await bare.client.callTool({ name: 'note', arguments: { text: 'x' } });
    const dir = tempDir();
    const granted = await connectProxy(dir, SERVERS.schemas, { config: writeConfig(dir, line) });
    const allowed = await granted.client.callTool({ name: 'note', arguments: { text: 'x' } });

    expect(stderr).toContain('calls to `note` (needs write, destructive) are refused: this session is granted read');
    expect(line).toBe('fuses: { permission: { granted: [read, write, destructive] } }');
    expect(refused.isError).toBe(true);
    expect(allowed.isError).toBeFalsy();
    expect(JSON.parse(textOf(allowed))).toEqual({ text: 'x' });
  });

  it('writes the hidden tools once, not on every tools/list', async () => {
    const dir = tempDir();
    const config = writeConfig(dir, 'mcp: { allow: [add_contact, note] }');
    const proxied = await connectProxy(dir, SERVERS.schemas, { config });

    for (let i = 0; i < 3; i++) await proxied.client.listTools();
    // A later line on the same stream: every line of the listings before it has arrived.
    await proxied.client.callTool({ name: 'note', arguments: { text: 'x' } });
    const stderr = await stderrShows(proxied, '`note` refused');

    expect(stderr.match(/hidden tools:/g)).toHaveLength(1);
    expect(stderr).toContain('hidden tools: `legacy_echo`, `broken`');
  });
});
