/**
 * The tool registry: an allow list (deny by default) and the tools registered under it.
 */

import { optionsOf } from '../invalid-argument.js';
import { ToolDefinitionError, ToolRegistryError } from './errors.js';

/** Options of {@link createToolRegistry}. */
export interface ToolRegistryOptions {
  /** The only tool names that may be registered and called. `[]` denies every tool. */
  readonly allowed: readonly string[];
}

/** Registered tools, by name, under an allow list. */
export interface ToolRegistry<T = unknown> {
  /** The allow list, as given. */
  readonly allowed: readonly string[];
  /** Register `tool` as `name`; refused when `name` is not allowed or already registered. */
  register(name: string, tool: T): void;
  /** The tool registered as `name`; throws {@link ToolRegistryError} for anything else. */
  get(name: string): T;
  /** True when `name` is allowed and registered. */
  has(name: string): boolean;
  /** Throw {@link ToolRegistryError} unless `name` is on the allow list. */
  assertAllowed(name: string): void;
  /** The registered tools, in registration order. */
  entries(): [name: string, tool: T][];
}

function quoteList(names: readonly string[]): string {
  return names.length === 0 ? 'none' : names.map((name) => `\`${name}\``).join(', ');
}

/**
 * Create a registry that refuses every name not on `allowed`. The message of a refusal names the
 * tool and the allow list; its `llmMessage` tells the model which tools exist.
 *
 * @example
 * const registry = createToolRegistry({ allowed: ['fetch_customer', 'search_docs'] });
 * registry.register('fetch_customer', fetchCustomer);
 * registry.get('delete_repo');
 * // ToolRegistryError: Unknown tool `delete_repo` (allowed: `fetch_customer`, `search_docs`)
 */
export function createToolRegistry<T = unknown>(given: ToolRegistryOptions): ToolRegistry<T> {
  const options = optionsOf('createToolRegistry', given);
  if (!Array.isArray(options.allowed) || options.allowed.some((name) => typeof name !== 'string')) {
    throw new ToolDefinitionError(undefined, 'allowed', 'must be an array of tool names');
  }
  const allowed: readonly string[] = Object.freeze([...options.allowed]);
  const allowedSet = new Set(allowed);
  const tools = new Map<string, T>();

  function unknownTool(name: string): ToolRegistryError {
    return new ToolRegistryError(
      'unknown_tool',
      name,
      allowed,
      `Unknown tool \`${name}\` (allowed: ${quoteList(allowed)})`,
      `The tool \`${name}\` does not exist or is not allowed; the call was NOT executed. ` +
        (allowed.length === 0 ? 'No tools are available.' : `Use one of: ${quoteList(allowed)}.`),
    );
  }

  function assertAllowed(name: string): void {
    if (!allowedSet.has(name)) throw unknownTool(name);
  }

  function register(name: string, tool: T): void {
    if (!allowedSet.has(name)) {
      throw new ToolRegistryError(
        'not_allowed',
        name,
        allowed,
        `Tool \`${name}\` cannot be registered: it is not allowed (allowed: ${quoteList(allowed)})`,
      );
    }
    if (tools.has(name)) {
      throw new ToolRegistryError('duplicate', name, allowed, `Tool \`${name}\` is already registered`);
    }
    const own = (tool as { toolName?: unknown } | null)?.toolName;
    if (typeof own === 'string' && own !== name) {
      throw new ToolRegistryError(
        'name_mismatch',
        name,
        allowed,
        `Tool \`${own}\` cannot be registered as \`${name}\`: its messages to the model would name another tool`,
      );
    }
    tools.set(name, tool);
  }

  function get(name: string): T {
    assertAllowed(name);
    const tool = tools.get(name);
    if (tool === undefined) {
      throw new ToolRegistryError(
        'not_registered',
        name,
        allowed,
        `Tool \`${name}\` is allowed but was never registered`,
        `The tool \`${name}\` is not available right now; the call was NOT executed.`,
      );
    }
    return tool;
  }

  function has(name: string): boolean {
    return allowedSet.has(name) && tools.has(name);
  }

  function entries(): [string, T][] {
    return [...tools.entries()];
  }

  return Object.freeze({ allowed, register, get, has, assertAllowed, entries });
}
