import { describe, expect, it } from 'vitest';
import { bounded } from '../../src/boundary/bounded.js';
import { createToolRegistry } from '../../src/boundary/create-tool-registry.js';
import { ToolDefinitionError, ToolRegistryError } from '../../src/boundary/errors.js';

function caught(fn: () => unknown): ToolRegistryError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ToolRegistryError) return error;
    throw error;
  }
  throw new Error('expected a ToolRegistryError');
}

describe('createToolRegistry', () => {
  const fetchCustomer = bounded({ name: 'fetch_customer', schema: {} }, () => 'c');

  it('refuses an unknown tool, naming it and the allow list', () => {
    const registry = createToolRegistry({ allowed: ['fetch_customer', 'search_docs'] });

    const error = caught(() => registry.get('delete_repo'));

    expect(error.message).toBe('Unknown tool `delete_repo` (allowed: `fetch_customer`, `search_docs`)');
    expect(error).toMatchObject({ code: 'tool_registry_unknown_tool', tool: 'delete_repo', reason: 'unknown_tool' });
    expect(error.allowed).toEqual(['fetch_customer', 'search_docs']);
    expect(error.llmMessage).toContain('NOT executed');
    expect(error.llmMessage).toContain('`fetch_customer`, `search_docs`');
    expect(() => registry.assertAllowed('delete_repo')).toThrow(ToolRegistryError);
  });

  it('denies everything with an empty allow list', () => {
    const registry = createToolRegistry({ allowed: [] });

    expect(caught(() => registry.get('fetch_customer')).message).toBe('Unknown tool `fetch_customer` (allowed: none)');
    expect(caught(() => registry.register('fetch_customer', fetchCustomer)).reason).toBe('not_allowed');
    expect(registry.has('fetch_customer')).toBe(false);
  });

  it('registers and returns allowed tools', () => {
    const registry = createToolRegistry({ allowed: ['fetch_customer', 'search_docs'] });

    registry.register('fetch_customer', fetchCustomer);

    expect(registry.get('fetch_customer')).toBe(fetchCustomer);
    expect(registry.has('fetch_customer')).toBe(true);
    expect(registry.has('search_docs')).toBe(false);
    expect(() => registry.assertAllowed('search_docs')).not.toThrow();
    expect(registry.entries()).toEqual([['fetch_customer', fetchCustomer]]);
  });

  it('tells an allowed but unregistered tool apart', () => {
    const registry = createToolRegistry({ allowed: ['search_docs'] });

    const error = caught(() => registry.get('search_docs'));

    expect(error.reason).toBe('not_registered');
    expect(error.message).toBe('Tool `search_docs` is allowed but was never registered');
  });

  it('refuses a duplicate and a tool registered under another name', () => {
    const registry = createToolRegistry({ allowed: ['fetch_customer', 'other'] });
    registry.register('fetch_customer', fetchCustomer);

    expect(caught(() => registry.register('fetch_customer', fetchCustomer)).reason).toBe('duplicate');
    expect(caught(() => registry.register('other', fetchCustomer)).reason).toBe('name_mismatch');
  });

  it('copies the allow list and looks names up exactly', () => {
    const allowed = ['fetch_customer'];
    const registry = createToolRegistry({ allowed });
    allowed.push('delete_repo');

    expect(() => registry.assertAllowed('delete_repo')).toThrow(ToolRegistryError);
    expect(() => registry.assertAllowed('toString')).toThrow(ToolRegistryError);
    expect(() => registry.assertAllowed('FETCH_CUSTOMER')).toThrow(ToolRegistryError);
  });

  it('refuses a malformed allow list', () => {
    expect(() => createToolRegistry({ allowed: 'fetch_customer' as never })).toThrow(ToolDefinitionError);
  });
});
