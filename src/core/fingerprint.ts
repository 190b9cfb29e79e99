/**
 * SHA-256 fingerprints of canonical JSON.
 */
import { hash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';
import { InvalidArgumentError, kindOf } from './guard-error.js';

/** SHA-256 hex digest of a UTF-8 string (one call, no Hash object per digest). */
export function sha256Hex(text: string): string {
  if (typeof text !== 'string')
    throw new InvalidArgumentError('sha256Hex', 'text', `must be a string, got ${kindOf(text)}`);
  return hash('sha256', text, 'hex');
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
