/**
 * The MCP SDK, loaded only when `hyphae mcp` runs: it is an optional peer dependency.
 */
import { importPeerDependency } from '../../peer-dependency.js';

/** Import `specifier` of `@modelcontextprotocol/sdk`, or fail with `missing_peer_dependency`. */
export function importSdk<T>(specifier: string): Promise<T> {
  return importPeerDependency(
    () => import(specifier) as Promise<T>,
    '@modelcontextprotocol/sdk',
    '`hyphae mcp`',
    `1.x (for \`${specifier}\`)`,
  );
}
