import { describe, expect, it } from 'vitest';
import { importSdk } from '../src/cli/mcp/load-sdk.js';
import { GuardError, MissingPeerDependencyError } from '../src/index.js';
import { importPeerDependency } from '../src/peer-dependency.js';

const notFound = () =>
  Promise.reject(Object.assign(new Error('Cannot find package'), { code: 'ERR_MODULE_NOT_FOUND' }));

async function refusal(load: Promise<unknown>): Promise<MissingPeerDependencyError> {
  const error = await load.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(MissingPeerDependencyError);
  return error as MissingPeerDependencyError;
}

describe('importPeerDependency: the one loader of optional peers', () => {
  it('hands back the module when it loads', async () => {
    const module = { default: 42 };
    expect(await importPeerDependency(() => Promise.resolve(module), 'pg', 'The PostgreSQL driver')).toBe(module);
  });

  it('names the package, what needs it and the install command when it is not installed', async () => {
    const error = await refusal(importPeerDependency(notFound, 'pg', 'The PostgreSQL driver', 'for its pool'));
    expect(error).toBeInstanceOf(GuardError);
    expect(error.code).toBe('missing_peer_dependency');
    expect(error.packageName).toBe('pg');
    expect(error.packageNames).toEqual(['pg']);
    expect(error.message).toBe(
      'The PostgreSQL driver needs the peer dependency `pg` for its pool, which is not installed: install it with `npm install pg`',
    );
    expect((error.cause as { code?: string }).code).toBe('ERR_MODULE_NOT_FOUND');
  });

  it('says "could not be loaded" for a package that fails while loading, and lists several packages', async () => {
    const broken = () => Promise.reject(new Error('native addon built for another Node.js'));
    const error = await refusal(importPeerDependency(broken, ['hono', '@hono/node-server'], 'The dashboard'));
    expect(error.packageNames).toEqual(['hono', '@hono/node-server']);
    expect(error.message).toBe(
      'The dashboard needs the peer dependencies `hono` and `@hono/node-server`, which could not be loaded: install them with `npm install hono @hono/node-server`',
    );
  });

  it('is what `hyphae mcp` raises for a part of the MCP SDK it cannot load', async () => {
    const error = await refusal(importSdk('@modelcontextprotocol/sdk/no-such-part.js'));
    expect(error.code).toBe('missing_peer_dependency');
    expect(error.message).toContain('`hyphae mcp` needs the peer dependency `@modelcontextprotocol/sdk` 1.x');
    expect(error.message).toContain('`npm install @modelcontextprotocol/sdk`');
    expect(await importSdk<{ McpServer: unknown }>('@modelcontextprotocol/sdk/server/mcp.js')).toHaveProperty(
      'McpServer',
    );
  });
});
