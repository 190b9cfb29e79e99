/**
 * The dialect the catalogue checks an upstream schema in: its `$schema`, else 2020-12 (MCP's
 * default), else draft-07 for a listing only that dialect reads.
 */
import { describe, expect, it } from 'vitest';
import { createMcpGuard } from '../../src/adapters/mcp/create-mcp-guard.js';
import type { McpPolicy } from '../../src/adapters/mcp/policy.js';
import type { McpToolDefinition } from '../../src/adapters/mcp/types.js';
import { compileSchema, type ToolSchema } from '../../src/boundary/compile-schema.js';

const READ = { readOnlyHint: true };

async function entryOf(tool: McpToolDefinition, policy: McpPolicy = {}) {
  const guard = createMcpGuard({ policy });
  await guard.observeTools([tool], 'replace');
  return guard.catalogue.get(tool.name);
}

describe('the dialect of an upstream schema', () => {
  it('reads a schema without `$schema` as 2020-12', async () => {
    const entry = await entryOf({
      name: 'pair',
      annotations: READ,
      inputSchema: { type: 'object', properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }] } } },
    });

    expect(entry?.hidden).toBeNull();
    expect(entry?.spec.schema).toMatchObject({ $schema: 'https://json-schema.org/draft/2020-12/schema' });
  });

  it('falls back to draft-07 for an undeclared schema only draft-07 reads', async () => {
    const entry = await entryOf({
      name: 'tuple',
      annotations: READ,
      inputSchema: { type: 'object', properties: { pair: { type: 'array', items: [{ type: 'string' }] } } },
    });

    expect(entry?.hidden).toBeNull();
    expect(entry?.spec.schema).toMatchObject({ $schema: 'http://json-schema.org/draft-07/schema#' });
  });

  it('keeps a declared dialect and names why a schema does not compile in it', async () => {
    const entry = await entryOf({
      name: 'tuple',
      annotations: READ,
      inputSchema: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { pair: { type: 'array', items: [{ type: 'string' }] } },
      },
    });

    expect(entry?.hidden).toBe('invalid_schema');
    expect(entry?.detail).toContain('/properties/pair/items');
  });
});

describe('keywords and formats an upstream schema may use', () => {
  const headerTool: McpToolDefinition = {
    name: 'send',
    annotations: READ,
    inputSchema: {
      type: 'object',
      properties: {
        region: { type: 'string', 'x-mcp-header': 'X-Region' },
        color: { type: 'string', format: 'hex-color' },
      },
      required: ['region'],
    },
  };

  it('reads a vendor keyword as an annotation and does not assert an unknown format', async () => {
    const entry = await entryOf(headerTool);
    const schema = compileSchema(entry?.spec.schema as ToolSchema);

    expect(entry?.hidden).toBeNull();
    expect(schema.validate({ region: 'eu', color: 'not a color' }).ok).toBe(true);
    expect(schema.validate({ region: 7 }).ok).toBe(false);
    expect(schema.validate({}).ok).toBe(false);
  });

  it("still refuses an unknown keyword in the config's own schema for the tool", async () => {
    const entry = await entryOf(headerTool, {
      tools: { send: { schema: { type: 'object', properties: { region: { type: 'string', maxLenght: 2 } } } } },
    });

    expect(entry?.hidden).toBe('invalid_schema');
    expect(entry?.detail).toContain('maxLenght');
  });
});
