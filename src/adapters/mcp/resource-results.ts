/**
 * The secret scan of `resources/read` results: the same formats and the same `secrets` policy as
 * tool results. A withheld resource is still a well-formed result — one text content saying why —
 * never a protocol error, which a client may retry blindly.
 */
import type { McpSecretsAction } from './policy.js';
import { scanSecrets } from './secrets.js';
import { REFUSAL_META } from './tool-results.js';

/** What scanning one `resources/read` result found. */
export interface ResourceScan {
  /** The result to answer the client with: unchanged, redacted or withheld. */
  readonly result: Record<string, unknown>;
  /** The kinds found; empty when the result passed as it was. */
  readonly kinds: readonly string[];
  /** The URI that was read, with any credential in it redacted (safe to log). */
  readonly uri: string;
}

/**
 * Scan a `resources/read` result for credentials and apply `action`.
 *
 * @example
 * scanResource('file:///app/.env', { contents: [{ uri: 'file:///app/.env', text: 'AKIAIOSFODNN7EXAMPLE' }] }, 'redact');
 * // { kinds: ['aws_access_key_id'], uri: 'file:///app/.env', result: { contents: [{ …, text: '[REDACTED:aws_access_key_id]' }] } }
 */
export function scanResource(uri: string, result: Record<string, unknown>, action: McpSecretsAction): ResourceScan {
  const named = scanSecrets(uri).redacted;
  if (action === 'off') return { result, kinds: [], uri: named };
  const found = scanSecrets(result);
  if (found.kinds.length === 0 || action === 'redact')
    return { result: found.redacted, kinds: found.kinds, uri: named };
  const text = `The resource \`${named}\` contained a credential (${found.kinds.join(', ')}) and was withheld. Do not read it again to see it; tell the user`;
  return {
    result: {
      contents: [{ uri: named, mimeType: 'text/plain', text }],
      _meta: { [REFUSAL_META]: { code: 'secret_in_resource', stage: 'resource' } },
    },
    kinds: found.kinds,
    uri: named,
  };
}
