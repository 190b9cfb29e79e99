/**
 * Credential scanning of tool arguments, tool results and resource contents: well-known key and
 * token formats, private key blocks, passwords in URLs and AWS secret keys where they are assigned,
 * found in every string of a JSON value and in the text a base64 payload holds. A finding names the
 * kind, never the value.
 */
import { unreadableArgument } from '../../invalid-argument.js';
import { decodeBase64Text, encodeBase64Text } from './base64-text.js';

/** One credential format. */
interface SecretFormat {
  readonly kind: string;
  /** With `keep`, group 1 is context kept as is (a URL's user, a variable's name) and group 2 the secret. */
  readonly pattern: RegExp;
  readonly keep?: true;
}

// A placeholder where a password would be: a mask, a template variable, an earlier redaction.
const NOT_A_PASSWORD = String.raw`(?!\[REDACTED:|\*+@|\$\{|\{\{|<[^>\s]*>@)`;

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
  {
    // `scheme://user:password@host`: the password up to the last `@` of the authority. A URL with a
    // user but no password, and an e-mail address (no `://`), are not credentials. The scheme's
    // length is bounded: unbounded, a long `a.a.a.…` is read once from every dot (quadratic).
    kind: 'credential_url',
    pattern: new RegExp(String.raw`\b([a-z][a-z0-9+.-]{0,31}:\/\/[^\s:/?#@]*:)${NOT_A_PASSWORD}([^\s/?#]+)(?=@)`, 'gi'),
    keep: true,
  },
  {
    // The secret key alone is 40 characters of base64, like many hashes: found only where named.
    kind: 'aws_secret_access_key',
    pattern: /((?:aws_?)?secret_?access_?key["']?\s*[:=]\s*["']?)([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])/gi,
    keep: true,
  },
];

const AWS_SECRET_NAME = /secret_?access_?key$/i;
const AWS_SECRET_VALUE = /^[A-Za-z0-9/+]{40}$/;

/** What a scan found and the value with every finding replaced by `[REDACTED:<kind>]`. */
export interface SecretScan<T> {
  /** The kinds found, once each, in order of first finding. */
  readonly kinds: readonly string[];
  readonly redacted: T;
}

function scanString(text: string, kinds: Set<string>): string {
  let out = text;
  for (const { kind, pattern, keep } of FORMATS) {
    pattern.lastIndex = 0;
    if (!pattern.test(out)) continue;
    kinds.add(kind);
    pattern.lastIndex = 0;
    out = out.replace(pattern, keep ? `$1[REDACTED:${kind}]` : `[REDACTED:${kind}]`);
  }
  return out;
}

/**
 * A base64 payload is scanned as the text it decodes to, and a redaction is encoded back, so the
 * client still gets valid base64. One that does not decode to text (binary, or over the size cap)
 * is scanned as it stands.
 */
function scanBase64(encoded: string, kinds: Set<string>): string {
  const text = decodeBase64Text(encoded);
  if (text === undefined) return scanString(encoded, kinds);
  const scanned = scanString(text, kinds);
  return scanned === text ? encoded : encodeBase64Text(scanned);
}

/** The base64 field of MCP content: a resource's `blob`, an image's or audio's `data`. */
function base64FieldOf(value: Record<string, unknown>): string | undefined {
  if (typeof value.blob === 'string' && typeof value.uri === 'string') return 'blob';
  if ((value.type === 'image' || value.type === 'audio') && typeof value.data === 'string') return 'data';
  return undefined;
}

function scanEntry(key: string, item: unknown, base64Field: string | undefined, kinds: Set<string>, depth: number) {
  if (typeof item !== 'string') return walk(item, kinds, depth);
  if (key === base64Field) return scanBase64(item, kinds);
  if (AWS_SECRET_NAME.test(key) && AWS_SECRET_VALUE.test(item)) {
    kinds.add('aws_secret_access_key');
    return '[REDACTED:aws_secret_access_key]';
  }
  return scanString(item, kinds);
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
    const record = value as Record<string, unknown>;
    const base64Field = base64FieldOf(record);
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(record)) {
      out[scanString(key, kinds)] = scanEntry(key, item, base64Field, kinds, depth + 1);
    }
    return out;
  }
  return value;
}

/**
 * Scan every string (keys included) of a JSON value for credentials, and the text inside the
 * base64 payloads of MCP content (`blob`, and `data` of an image or audio block).
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
