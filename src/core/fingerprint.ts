/**
 * SHA-256 fingerprints of canonical JSON.
 */
import * as crypto from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

// `crypto.hash` (Node 20.12+) digests in one call, without a Hash object per fingerprint.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: 'hex') => string }).hash;

/** SHA-256 hex digest of a UTF-8 string. */
export function sha256Hex(text: string): string {
  if (oneShot !== undefined) return oneShot('sha256', text, 'hex');
  return crypto.createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * SHA-256 hex digest of a value's RFC 8785 canonical JSON: stable under key reordering.
 *
 * @example
 * fingerprint({ a: 1, b: 2 }) === fingerprint({ b: 2, a: 1 }); // true
 */
export function fingerprint(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}
