/**
 * Credential scanning of tool arguments and results: well-known key and token formats and private
 * key blocks, found in every string of a JSON value. A finding names the kind, never the value.
 */
import { unreadableArgument } from '../../invalid-argument.js';

/** One credential format. */
interface SecretFormat {
  readonly kind: string;
  readonly pattern: RegExp;
}

// Prefixed formats only: a generic "high-entropy string" rule would refuse hashes and ids.
const FORMATS: readonly SecretFormat[] = [
  {
    kind: 'private_key',
    pattern: /-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|$)/g,
  },
  { kind: 'aws_access_key_id', pattern: /\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b/g },
  { kind: 'github_token', pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})\b/g },
  { kind: 'gitlab_token', pattern: /\bglpat-[A-Za-z0-9_-]{20,}\b/g },
  { kind: 'slack_token', pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { kind: 'stripe_key', pattern: /\b[rs]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { kind: 'openai_key', pattern: /\bsk-(?:proj-|ant-[a-z0-9]+-)?[A-Za-z0-9_-]{20,}\b/g },
  { kind: 'google_api_key', pattern: /\bAIza[0-9A-Za-z_-]{35}\b/g },
  { kind: 'npm_token', pattern: /\bnpm_[A-Za-z0-9]{36}\b/g },
  { kind: 'jwt', pattern: /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g },
];

/** What a scan found and the value with every finding replaced by `[REDACTED:<kind>]`. */
export interface SecretScan<T> {
  /** The kinds found, once each, in order of first finding. */
  readonly kinds: readonly string[];
  readonly redacted: T;
}

function scanString(text: string, kinds: Set<string>): string {
  let out = text;
  for (const { kind, pattern } of FORMATS) {
    pattern.lastIndex = 0;
    if (!pattern.test(out)) continue;
    kinds.add(kind);
    pattern.lastIndex = 0;
    out = out.replace(pattern, `[REDACTED:${kind}]`);
  }
  return out;
}

function walk(value: unknown, kinds: Set<string>, depth: number): unknown {
  if (typeof value === 'string') return scanString(value, kinds);
  // Deeper than any tool payload: a finding is assumed rather than the value left unread.
  if (depth > 64) {
    kinds.add('unscanned_depth');
    return null;
  }
  if (Array.isArray(value)) return value.map((item) => walk(item, kinds, depth + 1));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[scanString(key, kinds)] = walk(item, kinds, depth + 1);
    return out;
  }
  return value;
}

/**
 * Scan every string (keys included) of a JSON value for credentials.
 *
 * @example
 * scanSecrets({ token: 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB' });
 * // { kinds: ['github_token'], redacted: { token: '[REDACTED:github_token]' } }
 */
export function scanSecrets<T>(value: T): SecretScan<T> {
  try {
    const kinds = new Set<string>();
    const redacted = walk(value, kinds, 0) as T;
    return { kinds: [...kinds], redacted: kinds.size === 0 ? value : redacted };
  } catch (cause) {
    return unreadableArgument('scanSecrets', 'value', cause);
  }
}
