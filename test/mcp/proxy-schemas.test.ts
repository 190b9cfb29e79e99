/**
 * `hyphae mcp` in front of a server whose tools list hand-written JSON Schemas: 2020-12 (MCP's
 * default dialect) with `$defs`, `$ref` and `$anchor`, draft-07, and one that no validator compiles.
 */
import { describe, expect, it } from 'vitest';
import { connectProxy, SERVERS, stderrShows, textOf, useTempDirs } from './helpers.js';

const tempDir = useTempDirs();

function refusalCode(result: unknown): unknown {
  return (result as { _meta?: Record<string, { code?: unknown }> })._meta?.['io.hyphae/refusal']?.code;
}

describe('hyphae mcp and the JSON Schema dialects of tool listings', () => {
  it('lists a 2020-12 tool verbatim, passes a valid call and refuses an invalid one with the issue', async () => {
    const { client } = await connectProxy(tempDir(), SERVERS.schemas);

    const listed = await client.listTools();
    const valid = await client.callTool({
      name: 'add_contact',
      arguments: { name: 'Ada', address: { city: 'London' }, home: { city: 'Paris' } },
    });
    const wrongType = await client.callTool({ name: 'add_contact', arguments: { name: 'Ada', address: { city: 7 } } });
    const viaAnchor = await client.callTool({ name: 'add_contact', arguments: { name: 'Ada', home: { street: 'x' } } });
    const extra = await client.callTool({ name: 'add_contact', arguments: { name: 'Ada', age: 36 } });

    const tool = listed.tools.find((candidate) => candidate.name === 'add_contact');
    expect(tool?.inputSchema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(tool?.inputSchema.$defs).toMatchObject({ address: { $anchor: 'address' } });
    expect(tool?.inputSchema.additionalProperties).toBe(false);
    expect(valid.isError).toBeFalsy();
    expect(JSON.parse(textOf(valid))).toEqual({ name: 'Ada', address: { city: 'London' }, home: { city: 'Paris' } });
    for (const refused of [wrongType, viaAnchor, extra]) {
      expect(refused.isError).toBe(true);
      expect(refusalCode(refused)).toBe('tool_boundary_violation');
      expect(textOf(refused)).toContain('NOT executed');
    }
    expect(textOf(wrongType)).toContain('`/address/city`: Expected string, got integer 7');
    expect(textOf(viaAnchor)).toContain('`/home/city`: Required field `city` is missing');
    expect(textOf(extra)).toContain('age');
  });

  it('checks a draft-07 schema by its own dialect', async () => {
    const { client } = await connectProxy(tempDir(), SERVERS.schemas);

    const valid = await client.callTool({ name: 'legacy_echo', arguments: { text: 'hi' } });
    const empty = await client.callTool({ name: 'legacy_echo', arguments: { text: '' } });

    expect(JSON.parse(textOf(valid))).toEqual({ text: 'hi' });
    expect(refusalCode(empty)).toBe('tool_boundary_violation');
    expect(textOf(empty)).toContain('`/text`');
  });

  it('keeps a tool whose schema does not compile listed and answers its calls with the reason', async () => {
    const proxied = await connectProxy(tempDir(), SERVERS.schemas);

    const listed = await proxied.client.listTools();
    const call = await proxied.client.callTool({ name: 'broken', arguments: { id: 'a' } });
    const stderr = await stderrShows(proxied, '`broken` refused');

    expect(listed.tools.map((tool) => tool.name)).toContain('broken');
    expect(call.isError).toBe(true);
    expect(refusalCode(call)).toBe('mcp_tool_invalid_schema');
    expect(textOf(call)).toContain('NOT executed');
    expect(textOf(call)).toContain("can't resolve reference #/$defs/missing");
    expect(stderr).toContain('every call to `broken` is refused: its schema does not compile');
    expect(stderr).not.toContain('hidden tools');
  });
});
