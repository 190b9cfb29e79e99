/**
 * The MCP SDK, loaded only when `hyphae mcp` runs: it is an optional peer dependency.
 */
import { GuardError } from '../../errors.js';

/** Import `specifier` of `@modelcontextprotocol/sdk`, or fail with an error that names the package. */
export async function importSdk<T>(specifier: string): Promise<T> {
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    throw new GuardError(
      'mcp_sdk_missing',
      `\`hyphae mcp\` needs \`@modelcontextprotocol/sdk\` 1.x (\`npm install @modelcontextprotocol/sdk\`): cannot load \`${specifier}\``,
      { cause: error },
    );
  }
}
